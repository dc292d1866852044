-- Journey rows waiting for ClickHouse's journeys table (owned by ingest/): the touches of leads
-- (events whose UTM resolved to an ad entity), orders' contributions under their lead (signed:
-- a change is the old row negated and the new one) and lead merges. Written in the transaction of the event
-- batch or the order webhook that causes them, drained exactly once like fact_outbox (attempts
-- in outbox_attempts, lookups by journeys.outbox_id). Money is in micros, as in facts_raw.
CREATE TABLE journey_outbox (
    id                bigserial PRIMARY KEY,
    project_id        text NOT NULL,
    timezone          text NOT NULL,
    kind              text NOT NULL CHECK (kind IN ('touch', 'order', 'merge')),
    ts                timestamptz NOT NULL,
    lead_id           text NOT NULL,
    merged_into       text NOT NULL DEFAULT '',
    order_id          text NOT NULL DEFAULT '',
    event_id          text NOT NULL DEFAULT '',
    origin            text NOT NULL DEFAULT '',
    source            text NOT NULL DEFAULT '',
    connection_id     text NOT NULL DEFAULT '',
    account_id        text NOT NULL DEFAULT '',
    campaign_id       text NOT NULL DEFAULT '',
    adset_id          text NOT NULL DEFAULT '',
    ad_id             text NOT NULL DEFAULT '',
    currency          text NOT NULL DEFAULT '',
    tx_revenue        bigint NOT NULL DEFAULT 0,
    tx_count          bigint NOT NULL DEFAULT 0,
    tx_count_total    bigint NOT NULL DEFAULT 0,
    tx_count_pending  bigint NOT NULL DEFAULT 0,
    tx_count_refunded bigint NOT NULL DEFAULT 0,
    tx_product_costs  bigint NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL
);

-- journey says the order's current state is in the journey outbox (or already in ClickHouse):
-- a change negates it only then, and the backfill writes the orders without it.
ALTER TABLE orders ADD COLUMN journey boolean NOT NULL DEFAULT false;

-- journey_backfill records that a project's stored events and orders were copied into the
-- journey outbox (mtk journeys backfill): a second run skips the project.
CREATE TABLE journey_backfill (
    project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    done_at    timestamptz NOT NULL
);

-- The journey outbox keeps its size and its drain attempts beside the other two.
ALTER TABLE outbox_sizes DROP CONSTRAINT outbox_sizes_outbox_check,
    ADD CONSTRAINT outbox_sizes_outbox_check CHECK (outbox IN ('fact_outbox', 'event_outbox', 'journey_outbox'));
ALTER TABLE outbox_attempts DROP CONSTRAINT outbox_attempts_outbox_check,
    ADD CONSTRAINT outbox_attempts_outbox_check CHECK (outbox IN ('fact_outbox', 'event_outbox', 'journey_outbox'));
