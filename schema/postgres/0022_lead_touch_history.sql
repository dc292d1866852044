-- Every event's touch of a lead, not only its latest: an order's traffic source is its lead's latest
-- event at or before the order's created_at, and an order may be older than the lead's last event.
-- Read from here alone, acknowledging an order needs PostgreSQL only (ingest/orders.LeadTouch).
-- event_id compares bytewise, as ClickHouse does, so the key's order is the touches' order.
ALTER TABLE lead_touches DROP CONSTRAINT lead_touches_pkey;
ALTER TABLE lead_touches ALTER COLUMN event_id TYPE text COLLATE "C";
ALTER TABLE lead_touches ADD PRIMARY KEY (lead_id, ts, event_id);

-- Events stored before this migration (the event outbox ids up to events_before, and those drained
-- before ids were kept, outbox_id 0) kept only each lead's latest touch; the touch backfill
-- (ingest/events.TouchBackfill) reads them back from ClickHouse in (project_id, ts, event_id)
-- order and moves this cursor in the transaction that writes each chunk's touches. Until it is
-- done, a lead created before migrated_at has no known touch, and its orders' business rows wait
-- for the business backfill (orders.business false). A database without leads has nothing to read.
CREATE TABLE touch_backfill (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    migrated_at   timestamptz NOT NULL DEFAULT now(),
    events_before bigint NOT NULL,
    project_id    text NOT NULL DEFAULT '',
    ts            timestamptz,
    event_id      text NOT NULL DEFAULT '',
    done          boolean NOT NULL DEFAULT false
);
INSERT INTO touch_backfill (events_before, done)
SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('event_outbox', 'id')::regclass), 0),
    NOT EXISTS (SELECT 1 FROM leads);
