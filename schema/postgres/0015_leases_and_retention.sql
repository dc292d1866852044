-- An unfinished idempotency record is held by the process that runs its first call only as long
-- as that process renews its lease (api/idempotency): a repeat finds a record whose lease_until
-- has passed free to take over, seconds after a crash or a store fault rather than minutes.
-- The default gives a process that does not renew (one started before this migration) the
-- five minutes it used to have.
ALTER TABLE idempotency_records ADD COLUMN lease_until timestamptz NOT NULL DEFAULT now() + interval '5 minutes';

-- Settled conversions are purged after their retention (ingest/outbox.PurgeConversions): sent
-- ones after 7 days, dead ones after 30, by when they were queued.
CREATE INDEX conversion_outbox_settled ON conversion_outbox (status, created_at) WHERE status <> 'pending';
