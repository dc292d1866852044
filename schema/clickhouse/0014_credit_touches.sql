-- Credits by touch set and by the touch's traffic dimensions (CONTRACT "Query: views,
-- cross-channel attribution and identity"): every credit row carries the touch set it credits
-- (touches: "ads", the touches whose UTM resolves to an ad entity; "all", every marketing touch)
-- and the touch's utm_*, referrer_host, landing_path and device, so that the traffic view groups
-- credits by them; a touch of "all" that is no ad has an empty entity, and the unattributed part
-- empty dimensions too. The tables are otherwise as schema/clickhouse/0011_credits.sql describes
-- them (deltas, window blocks, dates, units).
--
-- Credits are derived data: the tables are made again empty, and
-- schema/postgres/0031_recredit.sql forgets what PostgreSQL says was credited and marks every
-- buyer, so that the credit worker credits every order again into them (with no old journey to
-- take back: nothing is negated into the new tables).
DROP TABLE IF EXISTS credits_hourly_mv;
DROP TABLE IF EXISTS credits_daily_mv;
DROP TABLE IF EXISTS credits_raw;
DROP TABLE IF EXISTS credits_hourly;
DROP TABLE IF EXISTS credits_daily;

CREATE TABLE IF NOT EXISTS credits_raw (
    project_id        String,
    model             String,
    touches           String,
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
    utm_source        String,
    utm_medium        String,
    utm_campaign      String,
    utm_content       String,
    utm_term          String,
    referrer_host     String,
    landing_path      String,
    device            String,
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
ORDER BY (project_id, model, touches, by_click, window_days, ts, source, connection_id, account_id, campaign_id, adset_id, ad_id);

CREATE TABLE IF NOT EXISTS credits_hourly (
    project_id        String,
    model             String,
    touches           String,
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
    utm_source        String,
    utm_medium        String,
    utm_campaign      String,
    utm_content       String,
    utm_term          String,
    referrer_host     String,
    landing_path      String,
    device            String,
    currency          FixedString(3),
    tx_revenue        Int64,
    tx_count          Int64,
    tx_count_total    Int64,
    tx_count_pending  Int64,
    tx_count_refunded Int64,
    tx_product_costs  Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, model, touches, by_click, window_hi, window_lo, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency);

CREATE TABLE IF NOT EXISTS credits_daily (
    project_id        String,
    model             String,
    touches           String,
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
    utm_source        String,
    utm_medium        String,
    utm_campaign      String,
    utm_content       String,
    utm_term          String,
    referrer_host     String,
    landing_path      String,
    device            String,
    currency          FixedString(3),
    tx_revenue        Int64,
    tx_count          Int64,
    tx_count_total    Int64,
    tx_count_pending  Int64,
    tx_count_refunded Int64,
    tx_product_costs  Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, model, touches, by_click, window_hi, window_lo, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency);

-- Credits land in credits_in, a Null table (it stores nothing), in one INSERT per batch: each
-- credit once as its raw row (grain 0), and the rollups' rows already spread into window blocks
-- and summed by their keys in Go (grain 1: hourly, 2: daily; facts.Resolution of the target;
-- facts/credits_write.go, facts/credit_blocks.go). The views only route rows: none spreads or
-- groups, which made a credit's insert 13 times slower on ClickHouse 18.16 (issue 41). A rollup
-- row holds the deltas of a block [window_lo, window_hi] of 1, 2, 4, ..., 64 windows that
-- contains their window_days, written only for the blocks some window's tiling reads (the
-- engine's window condition; 7 - popcount(window_days - 1) blocks of the 7 that contain a delta);
-- a raw row's window_lo and window_hi, and a rollup row's window_days, ts, outbox_id (and a daily
-- row's hour) are 0.
CREATE TABLE IF NOT EXISTS credits_in (
    grain             UInt8,
    project_id        String,
    model             String,
    touches           String,
    by_click          UInt8,
    window_days       UInt8,
    window_lo         UInt8,
    window_hi         UInt8,
    ts                DateTime,
    hour              DateTime,
    day               Date,
    source            String,
    connection_id     String,
    account_id        String,
    campaign_id       String,
    adset_id          String,
    ad_id             String,
    utm_source        String,
    utm_medium        String,
    utm_campaign      String,
    utm_content       String,
    utm_term          String,
    referrer_host     String,
    landing_path      String,
    device            String,
    currency          FixedString(3),
    tx_revenue        Int64,
    tx_count          Int64,
    tx_count_total    Int64,
    tx_count_pending  Int64,
    tx_count_refunded Int64,
    tx_product_costs  Int64,
    outbox_id         UInt64
) ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_raw_mv TO credits_raw AS
SELECT project_id, model, touches, by_click, window_days, ts, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    tx_revenue, tx_count, tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs, outbox_id
FROM credits_in WHERE grain = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_hourly_mv TO credits_hourly AS
SELECT project_id, model, touches, by_click, window_lo, window_hi, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    tx_revenue, tx_count, tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs
FROM credits_in WHERE grain = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_daily_mv TO credits_daily AS
SELECT project_id, model, touches, by_click, window_lo, window_hi, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    tx_revenue, tx_count, tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs
FROM credits_in WHERE grain = 2;
