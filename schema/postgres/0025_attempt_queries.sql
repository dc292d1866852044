-- The ClickHouse statements of a drain attempt (owned by ingest/outbox): every insert a try of
-- the attempt sends is named query_id || '.' || n. A worker killed while its insert runs leaves
-- that insert running on the server, which may store it seconds later; before another worker
-- decides what the attempt stored (looks its rows up by outbox_id), it kills the statements so
-- named and waits until none runs (system.processes). Empty for attempts made before this column.
ALTER TABLE outbox_attempts ADD COLUMN query_id text NOT NULL DEFAULT '';
