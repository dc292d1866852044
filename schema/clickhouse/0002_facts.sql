-- Metric facts (owned by engine/). One landing table holds both ad-network facts (spend,
-- impressions, ...) and business facts (events, orders) linked by attribution to an ad entity;
-- a business row simply leaves the ad columns at 0 and vice versa. Every value is additive: a
-- restated metric or an upserted order is written as a signed correcting difference, so every
-- read is GROUP BY + sum().
--
-- Money is Int64 micros (1e-6 of the major unit) of the row's own currency (the account's for ad
-- facts, the order's for orders); conversion happens at query time against fx_rates.
--
-- Time: ts is the fact's minute (UTC instant). hour and day are written by the application from
-- the project's IANA time zone: hour is the instant at which the fact's local hour starts, day is
-- the fact's local calendar day. The rollups group by them, so local-day (and local-hour)
-- boundaries are exact for every zone, including those with 30/45-minute offsets.
CREATE TABLE IF NOT EXISTS facts_raw (
    project_id        String,
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
    spend             Int64,
    impressions       Int64,
    clicks            Int64,
    reach             Int64,
    video_plays       Int64,
    video_views_3s    Int64,
    video_views_p75   Int64,
    page_views        Int64,
    leads             Int64,
    initiate_checkout Int64,
    tx_revenue        Int64,
    tx_count          Int64,
    tx_count_total    Int64,
    tx_count_pending  Int64,
    tx_count_refunded Int64,
    tx_product_costs  Int64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, ts, source, connection_id, account_id, campaign_id, adset_id, ad_id);

CREATE TABLE IF NOT EXISTS facts_hourly (
    project_id        String,
    hour              DateTime,
    day               Date,
    source            String,
    connection_id     String,
    account_id        String,
    campaign_id       String,
    adset_id          String,
    ad_id             String,
    currency          FixedString(3),
    spend             Int64,
    impressions       Int64,
    clicks            Int64,
    reach             Int64,
    video_plays       Int64,
    video_views_3s    Int64,
    video_views_p75   Int64,
    page_views        Int64,
    leads             Int64,
    initiate_checkout Int64,
    tx_revenue        Int64,
    tx_count          Int64,
    tx_count_total    Int64,
    tx_count_pending  Int64,
    tx_count_refunded Int64,
    tx_product_costs  Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency);

CREATE TABLE IF NOT EXISTS facts_daily (
    project_id        String,
    day               Date,
    source            String,
    connection_id     String,
    account_id        String,
    campaign_id       String,
    adset_id          String,
    ad_id             String,
    currency          FixedString(3),
    spend             Int64,
    impressions       Int64,
    clicks            Int64,
    reach             Int64,
    video_plays       Int64,
    video_views_3s    Int64,
    video_views_p75   Int64,
    page_views        Int64,
    leads             Int64,
    initiate_checkout Int64,
    tx_revenue        Int64,
    tx_count          Int64,
    tx_count_total    Int64,
    tx_count_pending  Int64,
    tx_count_refunded Int64,
    tx_product_costs  Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency);

-- Both rollups read facts_raw directly (no chained views) and cast every output to the target
-- column's type.
CREATE MATERIALIZED VIEW IF NOT EXISTS facts_hourly_mv TO facts_hourly AS
SELECT
    project_id, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency,
    CAST(sum(spend) AS Int64) AS spend,
    CAST(sum(impressions) AS Int64) AS impressions,
    CAST(sum(clicks) AS Int64) AS clicks,
    CAST(sum(reach) AS Int64) AS reach,
    CAST(sum(video_plays) AS Int64) AS video_plays,
    CAST(sum(video_views_3s) AS Int64) AS video_views_3s,
    CAST(sum(video_views_p75) AS Int64) AS video_views_p75,
    CAST(sum(page_views) AS Int64) AS page_views,
    CAST(sum(leads) AS Int64) AS leads,
    CAST(sum(initiate_checkout) AS Int64) AS initiate_checkout,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs
FROM facts_raw
GROUP BY project_id, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS facts_daily_mv TO facts_daily AS
SELECT
    project_id, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency,
    CAST(sum(spend) AS Int64) AS spend,
    CAST(sum(impressions) AS Int64) AS impressions,
    CAST(sum(clicks) AS Int64) AS clicks,
    CAST(sum(reach) AS Int64) AS reach,
    CAST(sum(video_plays) AS Int64) AS video_plays,
    CAST(sum(video_views_3s) AS Int64) AS video_views_3s,
    CAST(sum(video_views_p75) AS Int64) AS video_views_p75,
    CAST(sum(page_views) AS Int64) AS page_views,
    CAST(sum(leads) AS Int64) AS leads,
    CAST(sum(initiate_checkout) AS Int64) AS initiate_checkout,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs
FROM facts_raw
GROUP BY project_id, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency;
