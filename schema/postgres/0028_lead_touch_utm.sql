-- The UTM each touch carried (empty members when none), so that an order's reported attribution
-- is its person's latest UTM at or before the order's time, never a touch after it, read from
-- PostgreSQL alone (ingest/leads.UTMAt). Touches stored before this migration have no UTM here:
-- a person with no touch carrying one is read from its lead's latest UTM, as before.
ALTER TABLE lead_touches
    ADD COLUMN utm_source text NOT NULL DEFAULT '',
    ADD COLUMN utm_medium text NOT NULL DEFAULT '',
    ADD COLUMN utm_campaign text NOT NULL DEFAULT '',
    ADD COLUMN utm_content text NOT NULL DEFAULT '',
    ADD COLUMN utm_term text NOT NULL DEFAULT '';
