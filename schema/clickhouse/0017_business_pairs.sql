-- Rollups of the business facts for the queries about two dimensions, or one dimension by a level,
-- source or connection (read by engine/, fed from business_raw, registered in facts.BusinessFamily).
-- Those queries read 0008's rollups before, keyed by every dimension and the ad entity, which
-- with free-text UTM values hold about as many rows as business_raw.
--
-- business_pair_daily: one row per day and pair of paired dimensions (facts.BizPairs: every pair of
-- utm_source, utm_medium, utm_campaign, referrer_host, device, payment_method and customer_type,
-- each dimension_a before dimension_b in the order of the business tables' columns) and their
-- values. Free-text dimensions (utm_content, utm_term, landing_path) and products are not
-- paired: their pairs would hold about as many rows as the raw table.
--
-- business_dim_entity_daily: 0009's per-dimension rows, keyed also by the ad entity, so that a
-- dimension by campaign, ad set or ad, or under a source or connection filter, sums few rows.
--
-- Both are daily only: a raw row lands in 33 rows of theirs (21 pairs, 12 dimensions), and hourly
-- twins would double that on every insert for the hour series alone, which keep reading 0008's
-- hourly rollup. Each raw row lands once under every pair, and once under every dimension, so
-- the rows of one pair, or of one dimension, sum to the family's totals.
--
-- The rows stored before this migration reach them through the pair backfill (`mtk backfill
-- pairs`, ingest/pairs), which must never count a row the views counted: business_raw.pair_rollups
-- says which. mtk writes 1 into every row it writes from now on (facts.InsertBizFacts), and the
-- views take only those; the rows stored before read 0 (the column's default), and the backfill
-- takes only those, so no row is counted by both, whenever it was written. Its rows carry
-- backfilled = 1 (the views' 0), so that a backfill interrupted and run again sees which months
-- of a project it already wrote. Until it has finished for a project (PostgreSQL pair_backfill),
-- the engine reads that project's wide rollups instead.
ALTER TABLE business_raw ADD COLUMN pair_rollups UInt8;

CREATE TABLE IF NOT EXISTS business_pair_daily (
    project_id String,
    day Date,
    kind String,
    dimension_a String,
    value_a String,
    dimension_b String,
    value_b String,
    currency FixedString(3),
    page_views Int64,
    leads Int64,
    initiate_checkout Int64,
    tx_revenue Int64,
    tx_revenue_net Int64,
    tx_count Int64,
    tx_count_total Int64,
    tx_count_pending Int64,
    tx_count_refunded Int64,
    tx_product_costs Int64,
    tx_units Int64,
    backfilled UInt8
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, kind, dimension_a, dimension_b, day, value_a, value_b, currency, backfilled);

CREATE TABLE IF NOT EXISTS business_dim_entity_daily (
    project_id String,
    day Date,
    kind String,
    source String,
    connection_id String,
    account_id String,
    campaign_id String,
    adset_id String,
    ad_id String,
    dimension String,
    value String,
    currency FixedString(3),
    page_views Int64,
    leads Int64,
    initiate_checkout Int64,
    tx_revenue Int64,
    tx_revenue_net Int64,
    tx_count Int64,
    tx_count_total Int64,
    tx_count_pending Int64,
    tx_count_refunded Int64,
    tx_product_costs Int64,
    tx_units Int64,
    backfilled UInt8
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, kind, dimension, day, value, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency, backfilled);

CREATE MATERIALIZED VIEW IF NOT EXISTS business_pair_daily_mv TO business_pair_daily AS
SELECT
    project_id, day, kind, pv.1 AS dimension_a, pv.2 AS value_a, pv.3 AS dimension_b, pv.4 AS value_b, currency,
    CAST(sum(page_views) AS Int64) AS page_views,
    CAST(sum(leads) AS Int64) AS leads,
    CAST(sum(initiate_checkout) AS Int64) AS initiate_checkout,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_revenue_net) AS Int64) AS tx_revenue_net,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs,
    CAST(sum(tx_units) AS Int64) AS tx_units,
    toUInt8(0) AS backfilled
FROM business_raw
ARRAY JOIN [('utm_source', utm_source, 'utm_medium', utm_medium), ('utm_source', utm_source, 'utm_campaign', utm_campaign), ('utm_source', utm_source, 'referrer_host', referrer_host), ('utm_source', utm_source, 'device', device), ('utm_source', utm_source, 'payment_method', payment_method), ('utm_source', utm_source, 'customer_type', customer_type), ('utm_medium', utm_medium, 'utm_campaign', utm_campaign), ('utm_medium', utm_medium, 'referrer_host', referrer_host), ('utm_medium', utm_medium, 'device', device), ('utm_medium', utm_medium, 'payment_method', payment_method), ('utm_medium', utm_medium, 'customer_type', customer_type), ('utm_campaign', utm_campaign, 'referrer_host', referrer_host), ('utm_campaign', utm_campaign, 'device', device), ('utm_campaign', utm_campaign, 'payment_method', payment_method), ('utm_campaign', utm_campaign, 'customer_type', customer_type), ('referrer_host', referrer_host, 'device', device), ('referrer_host', referrer_host, 'payment_method', payment_method), ('referrer_host', referrer_host, 'customer_type', customer_type), ('device', device, 'payment_method', payment_method), ('device', device, 'customer_type', customer_type), ('payment_method', payment_method, 'customer_type', customer_type)] AS pv
WHERE pair_rollups = 1
GROUP BY project_id, day, kind, dimension_a, value_a, dimension_b, value_b, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS business_dim_entity_daily_mv TO business_dim_entity_daily AS
SELECT
    project_id, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id, dv.1 AS dimension, dv.2 AS value, currency,
    CAST(sum(page_views) AS Int64) AS page_views,
    CAST(sum(leads) AS Int64) AS leads,
    CAST(sum(initiate_checkout) AS Int64) AS initiate_checkout,
    CAST(sum(tx_revenue) AS Int64) AS tx_revenue,
    CAST(sum(tx_revenue_net) AS Int64) AS tx_revenue_net,
    CAST(sum(tx_count) AS Int64) AS tx_count,
    CAST(sum(tx_count_total) AS Int64) AS tx_count_total,
    CAST(sum(tx_count_pending) AS Int64) AS tx_count_pending,
    CAST(sum(tx_count_refunded) AS Int64) AS tx_count_refunded,
    CAST(sum(tx_product_costs) AS Int64) AS tx_product_costs,
    CAST(sum(tx_units) AS Int64) AS tx_units,
    toUInt8(0) AS backfilled
FROM business_raw
ARRAY JOIN [('utm_source', utm_source), ('utm_medium', utm_medium), ('utm_campaign', utm_campaign), ('utm_content', utm_content), ('utm_term', utm_term), ('referrer_host', referrer_host), ('landing_path', landing_path), ('device', device), ('product_id', product_id), ('product_name', product_name), ('payment_method', payment_method), ('customer_type', customer_type)] AS dv
WHERE pair_rollups = 1
GROUP BY project_id, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id, dimension, value, currency;
