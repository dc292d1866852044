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

-- Each raw delta lands in the block of each size that holds its window_days b: [lo, lo + size -
-- 1] with lo = (b - 1) rounded down to a multiple of size, plus 1.
CREATE MATERIALIZED VIEW IF NOT EXISTS credits_hourly_mv TO credits_hourly AS
SELECT
    project_id, model, touches, by_click,
    toUInt8(intDiv(window_days - 1, size) * size + 1) AS window_lo,
    toUInt8(intDiv(window_days - 1, size) * size + size) AS window_hi,
    hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs
FROM credits_raw
ARRAY JOIN [1, 2, 4, 8, 16, 32, 64] AS size
GROUP BY project_id, model, touches, by_click, window_lo, window_hi, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_daily_mv TO credits_daily AS
SELECT
    project_id, model, touches, by_click,
    toUInt8(intDiv(window_days - 1, size) * size + 1) AS window_lo,
    toUInt8(intDiv(window_days - 1, size) * size + size) AS window_hi,
    day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs
FROM credits_raw
ARRAY JOIN [1, 2, 4, 8, 16, 32, 64] AS size
GROUP BY project_id, model, touches, by_click, window_lo, window_hi, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency;
