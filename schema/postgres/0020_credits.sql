-- Precomputed attribution credits (owned by ingest/credits and ingest/outbox): the state that keeps
-- ClickHouse's credits_raw equal to facts.Credits of every order's current journey, exactly once.

-- credit_dirty: people whose journeys changed, whose orders the credit worker must credit again.
-- The journey drainer marks every lead of a batch it settles (order_id and order_ts empty); an
-- order without a lead is marked alone (lead_id empty, order_id and its time), so that the worker
-- reads that order and not every lead-less order of its project. A mark set again takes a new
-- seq: the worker deletes only the seq it read, so a mark set while it computes survives it.
CREATE SEQUENCE credit_dirty_seq;
CREATE TABLE credit_dirty (
    project_id text NOT NULL,
    lead_id    text NOT NULL,
    order_id   text NOT NULL DEFAULT '',
    order_ts   timestamptz NOT NULL DEFAULT 'epoch',
    seq        bigint NOT NULL DEFAULT nextval('credit_dirty_seq'),
    PRIMARY KEY (project_id, lead_id, order_id, order_ts)
);
CREATE INDEX credit_dirty_by_seq ON credit_dirty (seq);

-- order_credits: what credits_raw holds of each order: the person (root lead; empty for an order
-- without a lead) it was credited under, the facts.OrderJourney credited (JSON) and the project's
-- zone then. An order that no longer counts has no row.
CREATE TABLE order_credits (
    project_id text NOT NULL,
    order_id   text NOT NULL,
    person     text NOT NULL,
    zone       text NOT NULL,
    journey    jsonb NOT NULL,
    PRIMARY KEY (project_id, order_id)
);
CREATE INDEX order_credits_person ON order_credits (project_id, person);

-- credit_outbox: one row per order credited again, waiting for credits_raw: its old journey (in
-- old_zone; NULL: none) taken back and its new one (NULL: none) credited, drained exactly once
-- like fact_outbox (attempts in outbox_attempts, lookups by credits_raw.outbox_id). ts is the
-- order's time.
CREATE TABLE credit_outbox (
    id          bigserial PRIMARY KEY,
    project_id  text NOT NULL,
    ts          timestamptz NOT NULL,
    old_zone    text NOT NULL DEFAULT '',
    old_journey jsonb,
    new_zone    text NOT NULL DEFAULT '',
    new_journey jsonb,
    created_at  timestamptz NOT NULL
);

-- journeys_copied has a row once the journeys rows stored before journeys_by_lead existed were
-- copied into it (ingest/credits): the credit worker reads only journeys_by_lead.
CREATE TABLE journeys_copied (
    done_at timestamptz NOT NULL
);

ALTER TABLE outbox_sizes DROP CONSTRAINT outbox_sizes_outbox_check,
    ADD CONSTRAINT outbox_sizes_outbox_check CHECK (outbox IN ('fact_outbox', 'event_outbox', 'journey_outbox', 'credit_outbox'));
ALTER TABLE outbox_attempts DROP CONSTRAINT outbox_attempts_outbox_check,
    ADD CONSTRAINT outbox_attempts_outbox_check CHECK (outbox IN ('fact_outbox', 'event_outbox', 'journey_outbox', 'credit_outbox'));

-- Backfill: every stored buyer is marked, so that the orders stored before credits get credited
-- (the worker waits for the copy of journeys first).
INSERT INTO credit_dirty (project_id, lead_id)
SELECT DISTINCT project_id, lead_id FROM orders WHERE lead_id IS NOT NULL AND status <> 'failed';
INSERT INTO credit_dirty (project_id, lead_id, order_id, order_ts)
SELECT project_id, '', connection_id || '/' || transaction_id, date_trunc('second', created_at)
FROM orders WHERE lead_id IS NULL AND status <> 'failed';
