-- Landing tables of sync batches (owned by engine/, written by sync/). A sync run writes its
-- facts as one batch whose id every row carries, with one INSERT per landing table, into tables
-- whose rows are never collapsed: so after a failure, the batch's rows that ClickHouse holds
-- can be told from those it lacks, and only the missing ones are written (see sync/ and
-- schema/postgres/0006_sync_batches.sql). Facts known per hour land in facts_hourly_in, facts
-- known per day in facts_daily_in; facts at a minute land in facts_raw, which gets a batch_id
-- column that other writers leave empty and its views do not read. Each view below reads its
-- landing table directly (no chained views) and casts every output to the target's type.
-- The column is added last: the statements before it can run again if this migration stops.
CREATE TABLE IF NOT EXISTS facts_hourly_in (
    batch_id          String,
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
) ENGINE = MergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, hour, source, connection_id, account_id, campaign_id, adset_id, ad_id);

CREATE TABLE IF NOT EXISTS facts_daily_in (
    batch_id          String,
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
) ENGINE = MergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, day, source, connection_id, account_id, campaign_id, adset_id, ad_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS facts_hourly_in_hourly_mv TO facts_hourly AS
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
FROM facts_hourly_in
GROUP BY project_id, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS facts_hourly_in_daily_mv TO facts_daily AS
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
FROM facts_hourly_in
GROUP BY project_id, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS facts_daily_in_daily_mv TO facts_daily AS
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
FROM facts_daily_in
GROUP BY project_id, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency;

ALTER TABLE facts_raw ADD COLUMN batch_id String DEFAULT '';
