-- The business fact family (ClickHouse business_raw, owned by facts/): every event and order of a
-- project keyed by traffic source, product, payment method and customer type. Its rows travel
-- through the fact outbox beside the ad-attributed facts: a row whose kind is '' goes to
-- facts_raw, one of kind 'event', 'order' or 'item' to business_raw, with the keys below.
ALTER TABLE fact_outbox
    ADD COLUMN kind text NOT NULL DEFAULT '',
    ADD COLUMN utm_source text NOT NULL DEFAULT '',
    ADD COLUMN utm_medium text NOT NULL DEFAULT '',
    ADD COLUMN utm_campaign text NOT NULL DEFAULT '',
    ADD COLUMN utm_content text NOT NULL DEFAULT '',
    ADD COLUMN utm_term text NOT NULL DEFAULT '',
    ADD COLUMN referrer_host text NOT NULL DEFAULT '',
    ADD COLUMN landing_path text NOT NULL DEFAULT '',
    ADD COLUMN device text NOT NULL DEFAULT '',
    ADD COLUMN product_id text NOT NULL DEFAULT '',
    ADD COLUMN product_name text NOT NULL DEFAULT '',
    ADD COLUMN payment_method text NOT NULL DEFAULT '',
    ADD COLUMN customer_type text NOT NULL DEFAULT '',
    ADD COLUMN tx_revenue_net bigint NOT NULL DEFAULT 0,
    ADD COLUMN tx_units bigint NOT NULL DEFAULT 0;

-- An order keeps the business keys its rows were written with, so that a change negates them
-- exactly: payment_method as sent, customer_type, and where its lead came from (its latest event
-- before the order). business says its rows are in business_raw (or on their way): false for the
-- orders stored before this migration until the backfill writes them (mtk backfill business),
-- and a change of such an order writes only its new rows.
ALTER TABLE orders
    ADD COLUMN payment_method text NOT NULL DEFAULT ''
        CHECK (payment_method IN ('', 'pix', 'boleto', 'credit_card', 'debit_card', 'paypal', 'other')),
    ADD COLUMN customer_type text NOT NULL DEFAULT '' CHECK (customer_type IN ('', 'new', 'returning')),
    ADD COLUMN referrer_host text NOT NULL DEFAULT '',
    ADD COLUMN landing_path text NOT NULL DEFAULT '',
    ADD COLUMN device text NOT NULL DEFAULT '',
    ADD COLUMN business boolean NOT NULL DEFAULT false;
ALTER TABLE orders ALTER COLUMN business SET DEFAULT true;
CREATE INDEX orders_lead ON orders (lead_id, created_at) WHERE lead_id IS NOT NULL;
CREATE INDEX orders_business_pending ON orders (project_id) WHERE NOT business;

-- The backfill of events (mtk backfill business): the events stored before this migration (the
-- event outbox ids up to events_before, and those drained before ids were kept, outbox_id 0)
-- have no business rows; the backfill writes them in (project_id, ts, event_id) order, and its
-- cursor moves in the transaction that queues each chunk's rows, so a rerun resumes exactly.
CREATE TABLE business_backfill (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    migrated_at   timestamptz NOT NULL DEFAULT now(),
    events_before bigint NOT NULL,
    project_id    text NOT NULL DEFAULT '',
    ts            timestamptz,
    event_id      text NOT NULL DEFAULT '',
    events_done   boolean NOT NULL DEFAULT false,
    events        bigint NOT NULL DEFAULT 0
);
INSERT INTO business_backfill (events_before)
SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('event_outbox', 'id')::regclass), 0);

-- Each lead's latest event (by time, then event id) stored since this migration, written with the
-- event: where an order's lead came from is read here, and from the events themselves (ClickHouse
-- and the event outbox) only for leads older than business_backfill.migrated_at or whose latest
-- event is after the order.
CREATE TABLE lead_touches (
    lead_id       text PRIMARY KEY REFERENCES leads (id) ON DELETE CASCADE,
    ts            timestamptz NOT NULL,
    event_id      text NOT NULL,
    referrer_host text NOT NULL,
    landing_path  text NOT NULL,
    device        text NOT NULL
);
