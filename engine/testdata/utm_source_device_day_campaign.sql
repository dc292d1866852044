-- warnings: []
-- currency: BRL

-- attempt on business_daily, warnings []
-- query
SELECT bucket, source, campaign_id, campaign_name, utm_source, device, leads, tx_revenue, tx_count, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, source, campaign_id, utm_source, device, sum(s_leads) AS leads, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(s_tx_count) AS tx_count, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT day AS bucket, source, campaign_id, utm_source, device, day, currency, sum(leads) AS s_leads, sum(tx_revenue) AS s_tx_revenue, sum(tx_count) AS s_tx_count FROM business_daily WHERE project_id = ? AND kind IN ('event', 'order') AND day >= toDate(?) AND day < toDate(?) AND NOT (utm_medium != '') AND startsWith(lowerUTF8(landing_path), lowerUTF8(?)) GROUP BY bucket, source, campaign_id, utm_source, device, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, source, campaign_id, utm_source, device HAVING sum(s_leads) != 0 OR sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS campaign_id, argMax(name, version) AS campaign_name FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY source, entity_id) AS names USING (source, campaign_id) ORDER BY utm_source ASC, bucket ASC, source ASC, campaign_id ASC, device ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string prj_1
-- $5 string 2024-03-01
-- $6 string 2024-03-31
-- $7 string /produto
-- $8 string BRL
-- $9 string 2024-03-01
-- $10 string 2024-03-31
-- $11 string prj_1
-- $12 int 10001
-- $13 int 0
-- one currency
SELECT bucket, source, campaign_id, campaign_name, utm_source, device, leads, tx_revenue, tx_count, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, source, campaign_id, utm_source, device, sum(s_leads) AS leads, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, sum(s_tx_count) AS tx_count, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT day AS bucket, source, campaign_id, utm_source, device, currency, sum(leads) AS s_leads, sum(tx_revenue) AS s_tx_revenue, sum(tx_count) AS s_tx_count FROM business_daily WHERE project_id = ? AND kind IN ('event', 'order') AND day >= toDate(?) AND day < toDate(?) AND NOT (utm_medium != '') AND startsWith(lowerUTF8(landing_path), lowerUTF8(?)) GROUP BY bucket, source, campaign_id, utm_source, device, currency) AS facts GROUP BY bucket, source, campaign_id, utm_source, device HAVING sum(s_leads) != 0 OR sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS campaign_id, argMax(name, version) AS campaign_name FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY source, entity_id) AS names USING (source, campaign_id) ORDER BY notEmpty(fx_missing) DESC, utm_source ASC, bucket ASC, source ASC, campaign_id ASC, device ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 string 2024-03-01
-- $4 string 2024-03-31
-- $5 string /produto
-- $6 string prj_1
-- $7 int 10001
-- $8 int 0
