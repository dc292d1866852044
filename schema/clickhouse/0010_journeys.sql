-- Journeys (owned by engine/, written by ingest/outbox from journey_outbox): what attribution
-- models credit orders from at query time (engine/attribution*.go).
--
-- kind 'touch': one touch of a lead, an event of the lead whose UTM resolved to an ad entity,
-- at the event's time, with that entity (origin says what it was: 'event'; event_id names it).
-- Order columns are empty and 0.
-- kind 'order': an order's contribution under its lead, at the order's created time, in the
-- order's currency (order_id: connection id, '/', transaction id), signed and additive like facts_raw: a change of the order (status, amounts,
-- lead) is its old row negated and its new row, so summing by order gives its current state. The
-- entity columns are empty: models find the entities among the lead's touches.
--
-- kind 'merge': lead_id was merged into merged_into (another lead, a root then) at ts: a lead's
-- touches and orders count for its latest merged_into, so that a person's touches under an
-- identifier found before the merge credit orders found under the survivor.
--
-- Money is Int64 micros of currency, as in facts_raw. outbox_id is the journey_outbox row the
-- row came from, so that a retried drain never writes a row twice.
CREATE TABLE IF NOT EXISTS journeys (
    project_id        String,
    kind              String,
    ts                DateTime,
    lead_id           String,
    merged_into       String,
    order_id          String,
    event_id          String,
    origin            String,
    source            String,
    connection_id     String,
    account_id        String,
    campaign_id       String,
    adset_id          String,
    ad_id             String,
    currency          FixedString(3),
    tx_revenue        Int64,
    tx_count          Int64,
    tx_count_total    Int64,
    tx_count_pending  Int64,
    tx_count_refunded Int64,
    tx_product_costs  Int64,
    outbox_id         UInt64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, kind, ts, lead_id);
