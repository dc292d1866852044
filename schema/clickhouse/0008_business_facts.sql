-- Business facts (owned by engine/, written through facts/): the page views, leads, checkouts
-- and orders of a project keyed by where they came from (UTM as received, referrer host, landing
-- path, device), what was bought (product), how it was paid and by whom (new or returning
-- customer), beside the ad entity attribution linked them to (empty when none did). Unlike
-- facts_*, every event and order lands here, attributed or not, so that the breakdowns by
-- traffic source add up to the business totals.
--
-- kind says a row's grain and is the first key after the project: 'event' (one tracking event),
-- 'order' (an order's state, one row per order) or 'item' (one product line of an order: revenue
-- and costs split by line value, so an order's items sum to the order exactly). A query reads
-- 'event' and 'order' rows, or 'item' rows when it groups or filters by product, never both, so
-- nothing is counted twice.
--
-- Values are additive and signed as in facts_*: an order's change is its old rows negated and its
-- new rows. tx_revenue is the order's value (gross); tx_revenue_net its commission_value, else
-- its value; a commission in another currency is its own row (currency = the commission's, only
-- tx_revenue_net set). Empty text means missing (null in answers). Time columns as in facts_raw.
CREATE TABLE IF NOT EXISTS business_raw (
    project_id String,
    ts DateTime,
    hour DateTime,
    day Date,
    kind String,
    source String,
    connection_id String,
    account_id String,
    campaign_id String,
    adset_id String,
    ad_id String,
    utm_source String,
    utm_medium String,
    utm_campaign String,
    utm_content String,
    utm_term String,
    referrer_host String,
    landing_path String,
    device String,
    product_id String,
    product_name String,
    payment_method String,
    customer_type String,
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
    outbox_id UInt64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, kind, ts);

CREATE TABLE IF NOT EXISTS business_hourly (
    project_id String,
    hour DateTime,
    day Date,
    kind String,
    source String,
    connection_id String,
    account_id String,
    campaign_id String,
    adset_id String,
    ad_id String,
    utm_source String,
    utm_medium String,
    utm_campaign String,
    utm_content String,
    utm_term String,
    referrer_host String,
    landing_path String,
    device String,
    product_id String,
    product_name String,
    payment_method String,
    customer_type String,
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
ORDER BY (project_id, kind, hour, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, product_id, product_name, payment_method, customer_type, currency);

CREATE TABLE IF NOT EXISTS business_daily (
    project_id String,
    day Date,
    kind String,
    source String,
    connection_id String,
    account_id String,
    campaign_id String,
    adset_id String,
    ad_id String,
    utm_source String,
    utm_medium String,
    utm_campaign String,
    utm_content String,
    utm_term String,
    referrer_host String,
    landing_path String,
    device String,
    product_id String,
    product_name String,
    payment_method String,
    customer_type String,
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
ORDER BY (project_id, kind, day, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, product_id, product_name, payment_method, customer_type, currency);

-- Both rollups read business_raw directly and cast every output to the target column's type.
CREATE MATERIALIZED VIEW IF NOT EXISTS business_hourly_mv TO business_hourly AS
SELECT
    project_id, hour, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, product_id, product_name, payment_method, customer_type, currency,
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
GROUP BY project_id, hour, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, product_id, product_name, payment_method, customer_type, currency;

CREATE MATERIALIZED VIEW IF NOT EXISTS business_daily_mv TO business_daily AS
SELECT
    project_id, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, product_id, product_name, payment_method, customer_type, currency,
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
GROUP BY project_id, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, product_id, product_name, payment_method, customer_type, currency;
