-- The ClickHouse statements of a pending sync batch (owned by adsync): every insert of the batch's
-- latest try is named query_id || '.' || n (internal/chfence). A run killed or timed out while its
-- insert runs leaves that insert running on the server, which may store it seconds later; before
-- the next run decides what the batch stored (looks its rows up by batch_id), it kills the
-- statements so named and waits until none runs. Empty for batches stored before this column.
ALTER TABLE sync_batches ADD COLUMN query_id text NOT NULL DEFAULT '';
