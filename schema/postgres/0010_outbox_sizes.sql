-- Outbox sizes (owned by ingest/outbox): how many rows each of event_outbox and fact_outbox
-- holds, so that a writer can refuse what would pass the outbox's bound without counting the
-- table. The size is the sum of an outbox's rows here. Each PostgreSQL backend keeps its own row
-- (backend = pg_backend_pid()): a writer adds, in its own transaction, the rows it inserts, and a
-- drainer subtracts the rows it deletes, so writers never wait on one another's row (a single
-- counter row serialized every writer's commit). A job recounts the outboxes and folds every
-- row into backend 0 (outbox.Recount).
CREATE TABLE outbox_sizes (
    outbox  text NOT NULL CHECK (outbox IN ('fact_outbox', 'event_outbox')),
    backend integer NOT NULL,
    n       bigint NOT NULL,
    PRIMARY KEY (outbox, backend)
);
INSERT INTO outbox_sizes (outbox, backend, n)
SELECT 'event_outbox', 0, count(*) FROM event_outbox
UNION ALL
SELECT 'fact_outbox', 0, count(*) FROM fact_outbox;
