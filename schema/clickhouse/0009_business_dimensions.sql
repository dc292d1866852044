-- Per-dimension rollups of the business facts (read by engine/, fed from business_raw): one row per
-- project, hour or day, kind, dimension (one of the twelve traffic and order dimensions), its value
-- and currency. The rollups of 0008 keep every dimension in their key, so with free-text UTM values
-- (thousands of utm_content) a day of them holds about as many rows as business_raw; here a day
-- holds one row per value of each dimension. A query that groups or filters by one dimension only
-- (no level, no source or connection filter) reads these; any other reads 0008's tables. Each raw
-- row lands once under every dimension, so the rows of one dimension sum to the family's totals.

CREATE TABLE IF NOT EXISTS business_dim_hourly (
    project_id String,
    hour DateTime,
    day Date,
    kind String,
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
    tx_units Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (project_id, kind, dimension, hour, day, value, currency);

CREATE TABLE IF NOT EXISTS business_dim_daily (
    project_id String,
    day Date,
    kind String,
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
    tx_units Int64
) ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, kind, dimension, day, value, currency);

-- Both read business_raw directly and cast every output to the target column's type.
CREATE MATERIALIZED VIEW IF NOT EXISTS business_dim_hourly_mv TO business_dim_hourly AS
SELECT
    project_id, hour, day, kind, dv.1 AS dimension, dv.2 AS value, currency,
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
    CAST(sum(tx_units) AS Int64) AS tx_units
FROM business_raw
ARRAY JOIN [('utm_source', utm_source), ('utm_medium', utm_medium), ('utm_campaign', utm_campaign), ('utm_content', utm_content), ('utm_term', utm_term), ('referrer_host', referrer_host), ('landing_path', landing_path), ('device', device), ('product_id', product_id), ('product_name', product_name), ('payment_method', payment_method), ('customer_type', customer_type)] AS dv
GROUP BY project_id, hour, day, kind, dimension, value, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS business_dim_daily_mv TO business_dim_daily AS
SELECT
    project_id, day, kind, dv.1 AS dimension, dv.2 AS value, currency,
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
    CAST(sum(tx_units) AS Int64) AS tx_units
FROM business_raw
ARRAY JOIN [('utm_source', utm_source), ('utm_medium', utm_medium), ('utm_campaign', utm_campaign), ('utm_content', utm_content), ('utm_term', utm_term), ('referrer_host', referrer_host), ('landing_path', landing_path), ('device', device), ('product_id', product_id), ('product_name', product_name), ('payment_method', payment_method), ('customer_type', customer_type)] AS dv
GROUP BY project_id, day, kind, dimension, value, currency;
