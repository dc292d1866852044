-- warnings: []
-- currency: USD

-- attempt on facts_daily, warnings []
-- query
SELECT bucket, source, campaign_id, campaign_name, spend, tx_revenue, tx_product_costs, fx_missing FROM (SELECT bucket, source, campaign_id, sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(toDecimal128(s_tx_product_costs, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_product_costs, groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND (s_spend != 0 OR s_tx_revenue != 0 OR s_tx_product_costs != 0)) AS fx_missing FROM (SELECT toMonday(day) AS bucket, source, campaign_id, day, currency, sum(spend) AS s_spend, sum(tx_revenue) AS s_tx_revenue, sum(tx_product_costs) AS s_tx_product_costs FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY bucket, source, campaign_id, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, source, campaign_id) AS facts ANY LEFT JOIN (SELECT source, entity_id AS campaign_id, argMax(name, version) AS campaign_name FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY source, entity_id) AS names USING (source, campaign_id) ORDER BY toFloat64((tx_revenue - spend - tx_product_costs)) / 1000000 DESC NULLS LAST, campaign_name ASC, bucket ASC, source ASC, campaign_id ASC LIMIT ? OFFSET ?
-- $1 string USD
-- $2 string USD
-- $3 string USD
-- $4 string USD
-- $5 string prj_1
-- $6 string 2024-01-01
-- $7 string 2024-04-01
-- $8 string USD
-- $9 string 2024-01-01
-- $10 string 2024-04-01
-- $11 string prj_1
-- $12 int 51
-- $13 int 100
