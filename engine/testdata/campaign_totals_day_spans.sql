-- warnings: ["ad metrics are known per hour at best; the range was widened to whole hours" "ad metrics known per day only; the range was widened to whole days"]
-- currency: BRL

-- attempt on facts_hourly, warnings []
-- probe
SELECT count() FROM (SELECT 1 FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-02-27 03:00:00 +0000 UTC
-- $3 time.Time 2024-03-01 12:00:00 +0000 UTC
-- query
SELECT source, campaign_id, campaign_name, spend, impressions, tx_revenue, fx_missing, fx_null_spend, fx_null_tx_revenue, has_facts FROM (SELECT source, campaign_id, sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_impressions) AS impressions, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_spend != 0 OR s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_spend != 0) > 0) AS fx_null_spend, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue, toUInt8(count() > 0) AS has_facts FROM (SELECT source, campaign_id, day, currency, sum(spend) AS s_spend, sum(impressions) AS s_impressions, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND ((day >= toDate(?) AND day < toDate(?))) GROUP BY source, campaign_id, day, currency UNION ALL SELECT source, campaign_id, day, currency, sum(spend) AS s_spend, sum(impressions) AS s_impressions, sum(tx_revenue) AS s_tx_revenue FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? AND NOT ((day >= toDate(?) AND day < toDate(?))) GROUP BY source, campaign_id, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY source, campaign_id HAVING sum(s_spend) != 0 OR sum(s_impressions) != 0 OR sum(s_tx_revenue) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS campaign_id, argMax(name, version) AS campaign_name FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY source, entity_id) AS names USING (source, campaign_id) ORDER BY impressions DESC NULLS LAST, source ASC, campaign_id ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string BRL
-- $5 string BRL
-- $6 string prj_1
-- $7 string 2024-02-27
-- $8 string 2024-02-28
-- $9 string prj_1
-- $10 time.Time 2024-02-27 03:00:00 +0000 UTC
-- $11 time.Time 2024-03-01 12:00:00 +0000 UTC
-- $12 string 2024-02-27
-- $13 string 2024-02-28
-- $14 string BRL
-- $15 string 2024-02-27
-- $16 string 2024-03-02
-- $17 string prj_1
-- $18 int 10001
-- $19 int 0
-- one currency
SELECT source, campaign_id, campaign_name, spend, impressions, tx_revenue, fx_missing, fx_null_spend, fx_null_tx_revenue, has_facts FROM (SELECT source, campaign_id, sum(toDecimal128(s_spend, 0) * toDecimal64(1, 8)) AS spend, sum(s_impressions) AS impressions, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND (s_spend != 0 OR s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend, toUInt8(0) AS fx_null_tx_revenue, toUInt8(count() > 0) AS has_facts FROM (SELECT source, campaign_id, currency, sum(spend) AS s_spend, sum(impressions) AS s_impressions, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND ((day >= toDate(?) AND day < toDate(?))) GROUP BY source, campaign_id, currency UNION ALL SELECT source, campaign_id, currency, sum(spend) AS s_spend, sum(impressions) AS s_impressions, sum(tx_revenue) AS s_tx_revenue FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? AND NOT ((day >= toDate(?) AND day < toDate(?))) GROUP BY source, campaign_id, currency) AS facts GROUP BY source, campaign_id HAVING sum(s_spend) != 0 OR sum(s_impressions) != 0 OR sum(s_tx_revenue) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS campaign_id, argMax(name, version) AS campaign_name FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY source, entity_id) AS names USING (source, campaign_id) ORDER BY notEmpty(fx_missing) DESC, impressions DESC NULLS LAST, source ASC, campaign_id ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 string 2024-02-27
-- $4 string 2024-02-28
-- $5 string prj_1
-- $6 time.Time 2024-02-27 03:00:00 +0000 UTC
-- $7 time.Time 2024-03-01 12:00:00 +0000 UTC
-- $8 string 2024-02-27
-- $9 string 2024-02-28
-- $10 string prj_1
-- $11 int 10001
-- $12 int 0

-- attempt on facts_daily, warnings ["no hourly data for this range; answered from the daily table, with the range widened to whole days"]
-- probe
SELECT count() FROM (SELECT 1 FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) LIMIT 1)
-- $1 string prj_1
-- $2 string 2024-02-27
-- $3 string 2024-03-01
-- query
SELECT source, campaign_id, campaign_name, spend, impressions, tx_revenue, fx_missing, fx_null_spend, fx_null_tx_revenue FROM (SELECT source, campaign_id, sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_impressions) AS impressions, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_spend != 0 OR s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_spend != 0) > 0) AS fx_null_spend, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT source, campaign_id, day, currency, sum(spend) AS s_spend, sum(impressions) AS s_impressions, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY source, campaign_id, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY source, campaign_id HAVING sum(s_spend) != 0 OR sum(s_impressions) != 0 OR sum(s_tx_revenue) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS campaign_id, argMax(name, version) AS campaign_name FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY source, entity_id) AS names USING (source, campaign_id) ORDER BY impressions DESC NULLS LAST, source ASC, campaign_id ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string BRL
-- $5 string BRL
-- $6 string prj_1
-- $7 string 2024-02-27
-- $8 string 2024-03-02
-- $9 string BRL
-- $10 string 2024-02-27
-- $11 string 2024-03-02
-- $12 string prj_1
-- $13 int 10001
-- $14 int 0
-- one currency
SELECT source, campaign_id, campaign_name, spend, impressions, tx_revenue, fx_missing, fx_null_spend, fx_null_tx_revenue FROM (SELECT source, campaign_id, sum(toDecimal128(s_spend, 0) * toDecimal64(1, 8)) AS spend, sum(s_impressions) AS impressions, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND (s_spend != 0 OR s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT source, campaign_id, currency, sum(spend) AS s_spend, sum(impressions) AS s_impressions, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY source, campaign_id, currency) AS facts GROUP BY source, campaign_id HAVING sum(s_spend) != 0 OR sum(s_impressions) != 0 OR sum(s_tx_revenue) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS campaign_id, argMax(name, version) AS campaign_name FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY source, entity_id) AS names USING (source, campaign_id) ORDER BY notEmpty(fx_missing) DESC, impressions DESC NULLS LAST, source ASC, campaign_id ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 string 2024-02-27
-- $4 string 2024-03-02
-- $5 string prj_1
-- $6 int 10001
-- $7 int 0
