-- warnings: []
-- currency: BRL

-- attempt on business_dim_daily, warnings []
-- query
SELECT bucket, utm_source, page_views, tx_revenue, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, utm_source, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT day AS bucket, value AS utm_source, day, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM business_dim_daily WHERE project_id = ? AND kind IN ('event', 'order') AND dimension = ? AND day >= toDate(?) AND day < toDate(?) AND NOT (value IN ?) GROUP BY bucket, utm_source, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, utm_source HAVING sum(s_page_views) != 0 OR sum(s_tx_revenue) != 0) AS facts ORDER BY bucket ASC, page_views DESC NULLS LAST, utm_source ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string prj_1
-- $5 string utm_source
-- $6 string 2024-03-01
-- $7 string 2024-03-31
-- $8 clickhouse.GroupSet {[google]}
-- $9 string BRL
-- $10 string 2024-03-01
-- $11 string 2024-03-31
-- $12 int 10001
-- $13 int 0
-- one currency
SELECT bucket, utm_source, page_views, tx_revenue, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, utm_source, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT day AS bucket, value AS utm_source, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM business_dim_daily WHERE project_id = ? AND kind IN ('event', 'order') AND dimension = ? AND day >= toDate(?) AND day < toDate(?) AND NOT (value IN ?) GROUP BY bucket, utm_source, currency) AS facts GROUP BY bucket, utm_source HAVING sum(s_page_views) != 0 OR sum(s_tx_revenue) != 0) AS facts ORDER BY notEmpty(fx_missing) DESC, bucket ASC, page_views DESC NULLS LAST, utm_source ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 string utm_source
-- $4 string 2024-03-01
-- $5 string 2024-03-31
-- $6 clickhouse.GroupSet {[google]}
-- $7 int 10001
-- $8 int 0
