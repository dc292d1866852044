-- warnings: []
-- currency: BRL

-- attempt on facts_daily, warnings []
-- query
SELECT spend, clicks, tx_revenue, fx_missing, fx_null_spend, fx_null_tx_revenue FROM (SELECT sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_clicks) AS clicks, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_spend != 0 OR s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_spend != 0) > 0) AS fx_null_spend, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT day, currency, sum(spend) AS s_spend, sum(clicks) AS s_clicks, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency)) LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string BRL
-- $5 string BRL
-- $6 string prj_1
-- $7 string 2024-03-01
-- $8 string 2024-03-08
-- $9 string BRL
-- $10 string 2024-03-01
-- $11 string 2024-03-08
-- $12 int 10001
-- $13 int 0
-- one currency
SELECT spend, clicks, tx_revenue, fx_missing, fx_null_spend, fx_null_tx_revenue FROM (SELECT sum(toDecimal128(s_spend, 0) * toDecimal64(1, 8)) AS spend, sum(s_clicks) AS clicks, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND (s_spend != 0 OR s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT currency, sum(spend) AS s_spend, sum(clicks) AS s_clicks, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY currency) AS facts) LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 string 2024-03-01
-- $4 string 2024-03-08
-- $5 int 10001
-- $6 int 0
-- lean
SELECT spend, clicks, tx_revenue, fx_missing, fx_null_spend, fx_null_tx_revenue FROM (SELECT sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_clicks) AS clicks, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND (s_spend != 0 OR s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT day, currency, sum(spend) AS s_spend, sum(clicks) AS s_clicks, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency)) LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string prj_1
-- $5 string 2024-03-01
-- $6 string 2024-03-08
-- $7 string BRL
-- $8 string 2024-03-01
-- $9 string 2024-03-08
-- $10 int 10001
-- $11 int 0
