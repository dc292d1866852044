-- The event_outbox row an event came from (PostgreSQL; 0 for events stored before it existed):
-- the event drainer looks rows up by it after a crash, so that a retried batch never stores an
-- event twice.
ALTER TABLE events ADD COLUMN outbox_id UInt64 DEFAULT 0;
