-- Credits again every order (schema/clickhouse/0015_credit_windows.sql made the credit tables
-- again, empty, with each delta's own window in the rollups), as 0031_recredit.sql did for 0014:
-- what order_credits says was credited and the credit_outbox rows not yet drained (their old
-- journeys' negations would land in the new tables with nothing to cancel) are forgotten, with
-- their attempts and sizes, and every stored buyer is marked, so that the credit worker credits
-- each order from scratch.
DELETE FROM order_credits;
DELETE FROM credit_outbox;
DELETE FROM outbox_attempts WHERE outbox = 'credit_outbox';
DELETE FROM outbox_sizes WHERE outbox = 'credit_outbox';

INSERT INTO credit_dirty (project_id, lead_id)
SELECT DISTINCT project_id, lead_id FROM orders WHERE lead_id IS NOT NULL AND status <> 'failed'
ON CONFLICT (project_id, lead_id, order_id, order_ts) DO UPDATE SET seq = nextval('credit_dirty_seq');
INSERT INTO credit_dirty (project_id, lead_id, order_id, order_ts)
SELECT project_id, '', connection_id || '/' || transaction_id, date_trunc('second', created_at)
FROM orders WHERE lead_id IS NULL AND status <> 'failed'
ON CONFLICT (project_id, lead_id, order_id, order_ts) DO UPDATE SET seq = nextval('credit_dirty_seq');
