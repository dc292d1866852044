-- Drain attempts (owned by ingest/outbox): before a drainer sends a batch of fact_outbox or
-- event_outbox rows to ClickHouse, it commits one row here listing their ids; it deletes the
-- rows and their attempt together, in one transaction, once ClickHouse holds them. An outbox
-- row listed here may already be in ClickHouse (a crash between the insert and the delete), so
-- the drainer looks for it there (by outbox_id) before inserting it again. One small row per
-- batch replaces the attempted_at and applied_at marks, which rewrote every outbox row twice;
-- applied fact rows are now deleted like events (facts_raw keeps each fact's outbox_id).
CREATE TABLE outbox_attempts (
    id         bigserial PRIMARY KEY,
    outbox     text NOT NULL CHECK (outbox IN ('fact_outbox', 'event_outbox')),
    ids        bigint[] NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX outbox_attempts_outbox ON outbox_attempts (outbox);

-- Rows marked attempted by the previous drainer stay suspects.
INSERT INTO outbox_attempts (outbox, ids, created_at)
SELECT 'fact_outbox', array_agg(id ORDER BY id), now() FROM fact_outbox
WHERE attempted_at IS NOT NULL AND applied_at IS NULL HAVING count(*) > 0;
INSERT INTO outbox_attempts (outbox, ids, created_at)
SELECT 'event_outbox', array_agg(id ORDER BY id), now() FROM event_outbox
WHERE attempted_at IS NOT NULL HAVING count(*) > 0;

DELETE FROM fact_outbox WHERE applied_at IS NOT NULL;
DROP INDEX fact_outbox_pending;
ALTER TABLE fact_outbox DROP COLUMN attempted_at, DROP COLUMN applied_at;
ALTER TABLE event_outbox DROP COLUMN attempted_at;
