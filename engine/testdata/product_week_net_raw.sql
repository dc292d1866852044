-- warnings: []
-- currency: BRL

-- attempt on business_raw, warnings []
-- probe
SELECT count() FROM (SELECT 1 FROM business_raw WHERE project_id = ? AND ts >= ? AND ts < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $3 time.Time 2024-03-29 15:00:00 +0000 UTC
-- query
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue, has_facts FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue, toUInt8(count() > 0) AS has_facts FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, day, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_raw WHERE project_id = ? AND kind = 'item' AND ts >= ? AND ts < ? AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string prj_1
-- $5 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $6 time.Time 2024-03-29 15:00:00 +0000 UTC
-- $7 string tênis
-- $8 string BRL
-- $9 string 2024-03-01
-- $10 string 2024-03-30
-- $11 int 10001
-- $12 int 0
-- one currency
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue, has_facts FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue, toUInt8(count() > 0) AS has_facts FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_raw WHERE project_id = ? AND kind = 'item' AND ts >= ? AND ts < ? AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, currency) AS facts GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY notEmpty(fx_missing) DESC, bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $4 time.Time 2024-03-29 15:00:00 +0000 UTC
-- $5 string tênis
-- $6 int 10001
-- $7 int 0
-- lean
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue, has_facts FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue, toUInt8(count() > 0) AS has_facts FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, day, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_raw WHERE project_id = ? AND kind = 'item' AND ts >= ? AND ts < ? AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY notEmpty(fx_missing) DESC, bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string prj_1
-- $4 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $5 time.Time 2024-03-29 15:00:00 +0000 UTC
-- $6 string tênis
-- $7 string BRL
-- $8 string 2024-03-01
-- $9 string 2024-03-30
-- $10 int 10001
-- $11 int 0
-- orders of several products
SELECT toUInt64(sumIf(tx_count_total, kind = 'item') > sumIf(tx_count_total, kind = 'order')) FROM business_raw WHERE project_id = ? AND kind IN ('order', 'item') AND ts >= ? AND ts < ?
-- $1 string prj_1
-- $2 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $3 time.Time 2024-03-29 15:00:00 +0000 UTC

-- attempt on business_hourly, warnings ["no raw data for this range; answered from the hourly table, with the range widened to whole hours"]
-- probe
SELECT count() FROM (SELECT 1 FROM business_hourly WHERE project_id = ? AND hour >= ? AND hour < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-03-01 14:00:00 +0000 UTC
-- $3 time.Time 2024-03-29 15:00:00 +0000 UTC
-- query
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, day, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_hourly WHERE project_id = ? AND kind = 'item' AND hour >= ? AND hour < ? AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string prj_1
-- $5 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $6 time.Time 2024-03-29 15:00:00 +0000 UTC
-- $7 string tênis
-- $8 string BRL
-- $9 string 2024-03-01
-- $10 string 2024-03-30
-- $11 int 10001
-- $12 int 0
-- one currency
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_hourly WHERE project_id = ? AND kind = 'item' AND hour >= ? AND hour < ? AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, currency) AS facts GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY notEmpty(fx_missing) DESC, bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $4 time.Time 2024-03-29 15:00:00 +0000 UTC
-- $5 string tênis
-- $6 int 10001
-- $7 int 0
-- lean
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, day, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_hourly WHERE project_id = ? AND kind = 'item' AND hour >= ? AND hour < ? AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY notEmpty(fx_missing) DESC, bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string prj_1
-- $4 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $5 time.Time 2024-03-29 15:00:00 +0000 UTC
-- $6 string tênis
-- $7 string BRL
-- $8 string 2024-03-01
-- $9 string 2024-03-30
-- $10 int 10001
-- $11 int 0
-- orders of several products
SELECT toUInt64(sumIf(tx_count_total, kind = 'item') > sumIf(tx_count_total, kind = 'order')) FROM business_hourly WHERE project_id = ? AND kind IN ('order', 'item') AND hour >= ? AND hour < ?
-- $1 string prj_1
-- $2 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $3 time.Time 2024-03-29 15:00:00 +0000 UTC

-- attempt on business_daily, warnings ["no raw data for this range; answered from the daily table, with the range widened to whole days"]
-- probe
SELECT count() FROM (SELECT 1 FROM business_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) LIMIT 1)
-- $1 string prj_1
-- $2 string 2024-03-02
-- $3 string 2024-03-29
-- query
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, day, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_daily WHERE project_id = ? AND kind = 'item' AND day >= toDate(?) AND day < toDate(?) AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string BRL
-- $4 string prj_1
-- $5 string 2024-03-01
-- $6 string 2024-03-30
-- $7 string tênis
-- $8 string BRL
-- $9 string 2024-03-01
-- $10 string 2024-03-30
-- $11 int 10001
-- $12 int 0
-- one currency
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_daily WHERE project_id = ? AND kind = 'item' AND day >= toDate(?) AND day < toDate(?) AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, currency) AS facts GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY notEmpty(fx_missing) DESC, bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string prj_1
-- $3 string 2024-03-01
-- $4 string 2024-03-30
-- $5 string tênis
-- $6 int 10001
-- $7 int 0
-- lean
SELECT bucket, product_id, customer_type, tx_revenue, tx_count, tx_units, fx_missing, fx_null_tx_revenue FROM (SELECT bucket, product_id, customer_type, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, sum(s_tx_count) AS tx_count, sum(s_tx_units) AS tx_units, groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT toMonday(day) AS bucket, product_id, customer_type, day, currency, sum(tx_revenue_net) AS s_tx_revenue, sum(tx_count) AS s_tx_count, sum(tx_units) AS s_tx_units FROM business_daily WHERE project_id = ? AND kind = 'item' AND day >= toDate(?) AND day < toDate(?) AND positionCaseInsensitiveUTF8(product_name, ?) > 0 GROUP BY bucket, product_id, customer_type, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket, product_id, customer_type HAVING sum(s_tx_revenue) != 0 OR sum(s_tx_count) != 0 OR sum(s_tx_units) != 0) AS facts ORDER BY notEmpty(fx_missing) DESC, bucket ASC, if(fx_null_tx_revenue = 1, NULL, toFloat64(tx_revenue) / 1000000) DESC NULLS LAST, product_id ASC, customer_type ASC LIMIT ? OFFSET ?
-- $1 string BRL
-- $2 string BRL
-- $3 string prj_1
-- $4 string 2024-03-01
-- $5 string 2024-03-30
-- $6 string tênis
-- $7 string BRL
-- $8 string 2024-03-01
-- $9 string 2024-03-30
-- $10 int 10001
-- $11 int 0
-- orders of several products
SELECT toUInt64(sumIf(tx_count_total, kind = 'item') > sumIf(tx_count_total, kind = 'order')) FROM business_daily WHERE project_id = ? AND kind IN ('order', 'item') AND day >= toDate(?) AND day < toDate(?)
-- $1 string prj_1
-- $2 string 2024-03-01
-- $3 string 2024-03-30
