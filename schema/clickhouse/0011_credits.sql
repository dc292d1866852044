-- Attribution credits (owned by engine/, written by ingest/ through credit_outbox): what every
-- attribution model but "reported" credits each ad entity with, precomputed per order so that a
-- model query reads rolled-up rows like facts (facts/credits.go says how they are made).
--
-- A row of credits_raw is a delta: from a window of window_days days on, the credit of one
-- touch's entity (or of no entity: the unattributed part) under model changes by the row's
-- values. The credit under window w is the sum of the deltas with window_days <= w, so for every
-- w an order's credits plus its unattributed part equal its values. The rollups hold each delta in
-- the 7 aligned blocks [window_lo, window_hi] of 1, 2, 4, ..., 64 windows that contain its
-- window_days, so that a query sums only the popcount(w) blocks that tile [1, w]
-- (engine/attribution.go).
--
-- by_click 0 puts a credit on its order's time (date "conversion"), 1 on its touch's time (date
-- "click"); unattributed parts are on the order's time in both. ts, hour and day are as in
-- facts_raw (the minute; the local hour's start and the local day in the project's zone). Money
-- is Int64 micros of currency; counts are in units of 1/10,000 of an order. outbox_id is the
-- credit_outbox row the row came from, so that a retried drain never writes a row twice.
CREATE TABLE IF NOT EXISTS credits_raw (
    project_id        String,
    model             String,
    by_click          UInt8,
    window_days       UInt8,
    ts                DateTime,
    hour              DateTime,
    day               Date,
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
ORDER BY (project_id, model, by_click, window_days, ts, source, connection_id, account_id, campaign_id, adset_id, ad_id);

CREATE TABLE IF NOT EXISTS credits_hourly (
    project_id        String,
    model             String,
    by_click          UInt8,
    window_lo         UInt8,
    window_hi         UInt8,
    hour              DateTime,
    day               Date,
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
    tx_product_costs  Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, model, by_click, window_hi, window_lo, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency);

CREATE TABLE IF NOT EXISTS credits_daily (
    project_id        String,
    model             String,
    by_click          UInt8,
    window_lo         UInt8,
    window_hi         UInt8,
    day               Date,
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
    tx_product_costs  Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, model, by_click, window_hi, window_lo, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency);

-- Each raw delta lands in the block of each size that holds its window_days b: [lo, lo + size -
-- 1] with lo = (b - 1) rounded down to a multiple of size, plus 1.
CREATE MATERIALIZED VIEW IF NOT EXISTS credits_hourly_mv TO credits_hourly AS
SELECT
    project_id, model, by_click,
    toUInt8(intDiv(window_days - 1, size) * size + 1) AS window_lo,
    toUInt8(intDiv(window_days - 1, size) * size + size) AS window_hi,
    hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs
FROM credits_raw
ARRAY JOIN [1, 2, 4, 8, 16, 32, 64] AS size
GROUP BY project_id, model, by_click, window_lo, window_hi, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_daily_mv TO credits_daily AS
SELECT
    project_id, model, by_click,
    toUInt8(intDiv(window_days - 1, size) * size + 1) AS window_lo,
    toUInt8(intDiv(window_days - 1, size) * size + size) AS window_hi,
    day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs
FROM credits_raw
ARRAY JOIN [1, 2, 4, 8, 16, 32, 64] AS size
GROUP BY project_id, model, by_click, window_lo, window_hi, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency;

-- journeys_by_lead holds the journeys rows ordered by lead: the credit worker reads one person's
-- touches and orders (ingest/credits) by the primary key.
CREATE TABLE IF NOT EXISTS journeys_by_lead (
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
ORDER BY (project_id, lead_id, kind, ts);
