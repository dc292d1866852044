-- credits_traffic_daily is credits_daily without the ad entity: per local day, keyed by the
-- touch's traffic dimensions only, so that a traffic-view model query with no entity level or
-- filter (the traffic view groups by traffic dimensions) reads no entity column and one row
-- where credits_daily holds one per ad (engine/credited.go; issue 39: models within 3x of
-- reported). It holds what credits_daily holds, the deltas with their own window_days
-- (0015), fed by a plain view of credits_raw in the credit drainer's one INSERT.
--
-- It is made empty beside 0015's tables, which schema/postgres/0036_recredit_windows.sql fills
-- again from scratch: every credit written after 0015 lands in it too.
CREATE TABLE IF NOT EXISTS credits_traffic_daily (
    project_id        String,
    model             String,
    touches           String,
    by_click          UInt8,
    window_days       UInt8,
    day               Date,
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
ORDER BY (project_id, model, touches, by_click, day, window_days, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency);

CREATE MATERIALIZED VIEW IF NOT EXISTS credits_traffic_daily_mv TO credits_traffic_daily AS
SELECT project_id, model, touches, by_click, window_days, day, utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer_host, landing_path, device, currency,
    tx_revenue, tx_count, tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs
FROM credits_raw;
