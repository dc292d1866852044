-- Whether an order's UTM was its own (the webhook's transaction.utm) or its person's latest touch
-- at or before the order's time: only the latter is attributed again when a late touch or a merge
-- gives the person an earlier UTM (ingest/orders.Reattribute). An order stored before this
-- migration with a UTM keeps it, as before.
ALTER TABLE orders ADD COLUMN utm_own boolean;
UPDATE orders SET utm_own = (utm_source <> '' OR utm_medium <> '' OR utm_campaign <> '' OR utm_content <> '' OR utm_term <> '');
ALTER TABLE orders ALTER COLUMN utm_own SET NOT NULL, ALTER COLUMN utm_own SET DEFAULT false;
