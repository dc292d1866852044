-- No window blocks (issue 41): every credit table keeps each delta's own window_days, the first
-- window that counts it, and the credits of a window of w days are the deltas of window_days <= w
-- (a range of the rollups' sorting key, after the hour or day). The rollups are fed by two plain
-- views of credits_raw, which the credit drainer inserts into in one statement
-- (facts.InsertCredits): no Null landing table, no rows spread into window blocks, whose views
-- made a credit's insert 13 times slower on ClickHouse 18.16. A credit is one raw row and at most
-- one row of each rollup. The tables are otherwise as schema/clickhouse/0014_credit_touches.sql
-- describes them (deltas, touch sets, touch dimensions, dates, units).
--
-- Credits are derived data: the tables are made again empty, and
-- schema/postgres/0036_recredit_windows.sql forgets what PostgreSQL says was credited and marks
-- every buyer, so that the credit worker credits every order again into them (with no old
-- journey to take back: nothing is negated into the new tables).
DROP TABLE IF EXISTS credits_raw_mv;
DROP TABLE IF EXISTS credits_hourly_mv;
DROP TABLE IF EXISTS credits_daily_mv;
DROP TABLE IF EXISTS credits_in;
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
    window_days       UInt8,
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
ORDER BY (project_id, model, touches, by_click, hour, window_days, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency);

CREATE TABLE IF NOT EXISTS credits_daily (
    project_id        String,
    model             String,
    touches           String,
    by_click          UInt8,
    window_days       UInt8,
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
ORDER BY (project_id, model, touches, by_click, day, window_days, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency);

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_hourly_mv TO credits_hourly AS
SELECT project_id, model, touches, by_click, window_days, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    tx_revenue, tx_count, tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs
FROM credits_raw;

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_daily_mv TO credits_daily AS
SELECT project_id, model, touches, by_click, window_days, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    tx_revenue, tx_count, tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs
FROM credits_raw;
