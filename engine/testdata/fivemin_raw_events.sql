-- warnings: []
-- currency: BRL

-- attempt on facts_raw, warnings []
-- probe
SELECT count() FROM (SELECT 1 FROM facts_raw WHERE project_id = ? AND ts >= ? AND ts < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $3 time.Time 2024-03-01 15:00:00 +0000 UTC
-- query
SELECT bucket, page_views, tx_revenue, fx_missing, fx_null_tx_revenue, has_facts FROM (SELECT DISTINCT toStartOfFiveMinute(ts, 'America/Sao_Paulo') AS bucket FROM (SELECT toDateTime(? + number * 300) AS ts FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue, toUInt8(count() > 0) AS has_facts FROM (SELECT toStartOfFiveMinute(ts, 'America/Sao_Paulo') AS bucket, day, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM facts_raw WHERE project_id = ? AND ts >= ? AND ts < ? AND campaign_id IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) GROUP BY bucket, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket) AS facts USING (bucket) ORDER BY bucket ASC, page_views DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 int64 1709298300
-- $2 int64 23
-- $3 string BRL
-- $4 string BRL
-- $5 string BRL
-- $6 string prj_1
-- $7 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $8 time.Time 2024-03-01 15:00:00 +0000 UTC
-- $9 string prj_1
-- $10 string summer
-- $11 string BRL
-- $12 string 2024-03-01
-- $13 string 2024-03-02
-- $14 int 10001
-- $15 int 0
-- one currency
SELECT bucket, page_views, tx_revenue, fx_missing, fx_null_tx_revenue, has_facts FROM (SELECT DISTINCT toStartOfFiveMinute(ts, 'America/Sao_Paulo') AS bucket FROM (SELECT toDateTime(? + number * 300) AS ts FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue, toUInt8(count() > 0) AS has_facts FROM (SELECT toStartOfFiveMinute(ts, 'America/Sao_Paulo') AS bucket, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM facts_raw WHERE project_id = ? AND ts >= ? AND ts < ? AND campaign_id IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) GROUP BY bucket, currency) AS facts GROUP BY bucket) AS facts USING (bucket) ORDER BY notEmpty(fx_missing) DESC, bucket ASC, page_views DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 int64 1709298300
-- $2 int64 23
-- $3 string BRL
-- $4 string prj_1
-- $5 time.Time 2024-03-01 13:07:00 +0000 UTC
-- $6 time.Time 2024-03-01 15:00:00 +0000 UTC
-- $7 string prj_1
-- $8 string summer
-- $9 int 10001
-- $10 int 0

-- attempt on facts_hourly, warnings ["no raw data for this range; answered from the hourly table at hour granularity, with the range widened to whole hours"]
-- probe
SELECT count() FROM (SELECT 1 FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-03-01 14:00:00 +0000 UTC
-- $3 time.Time 2024-03-01 15:00:00 +0000 UTC
-- query
SELECT bucket, page_views, tx_revenue, fx_missing, fx_null_tx_revenue FROM (SELECT DISTINCT toDateTime(hour, 'America/Sao_Paulo') AS bucket FROM (SELECT toStartOfHour(toDateTime(? + number * 300), 'America/Sao_Paulo') AS hour FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT toDateTime(hour, 'America/Sao_Paulo') AS bucket, day, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? AND campaign_id IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) GROUP BY bucket, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket) AS facts USING (bucket) ORDER BY bucket ASC, page_views DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 int64 1709298300
-- $2 int64 23
-- $3 string BRL
-- $4 string BRL
-- $5 string BRL
-- $6 string prj_1
-- $7 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $8 time.Time 2024-03-01 15:00:00 +0000 UTC
-- $9 string prj_1
-- $10 string summer
-- $11 string BRL
-- $12 string 2024-03-01
-- $13 string 2024-03-02
-- $14 int 10001
-- $15 int 0
-- one currency
SELECT bucket, page_views, tx_revenue, fx_missing, fx_null_tx_revenue FROM (SELECT DISTINCT toDateTime(hour, 'America/Sao_Paulo') AS bucket FROM (SELECT toStartOfHour(toDateTime(? + number * 300), 'America/Sao_Paulo') AS hour FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT toDateTime(hour, 'America/Sao_Paulo') AS bucket, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? AND campaign_id IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) GROUP BY bucket, currency) AS facts GROUP BY bucket) AS facts USING (bucket) ORDER BY notEmpty(fx_missing) DESC, bucket ASC, page_views DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 int64 1709298300
-- $2 int64 23
-- $3 string BRL
-- $4 string prj_1
-- $5 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $6 time.Time 2024-03-01 15:00:00 +0000 UTC
-- $7 string prj_1
-- $8 string summer
-- $9 int 10001
-- $10 int 0

-- attempt on facts_daily, warnings ["no raw data for this range; answered from the daily table at day granularity, with the range widened to whole days"]
-- probe
SELECT count() FROM (SELECT 1 FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) LIMIT 1)
-- $1 string prj_1
-- $2 string 2024-03-02
-- $3 string 2024-03-01
-- query
SELECT bucket, page_views, tx_revenue, fx_missing, fx_null_tx_revenue FROM (SELECT DISTINCT day AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS tx_revenue, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_tx_revenue != 0) > 0) AS fx_null_tx_revenue FROM (SELECT day AS bucket, day, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) AND campaign_id IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) GROUP BY bucket, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket) AS facts USING (bucket) ORDER BY bucket ASC, page_views DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string 2024-03-01
-- $2 int 1
-- $3 string BRL
-- $4 string BRL
-- $5 string BRL
-- $6 string prj_1
-- $7 string 2024-03-01
-- $8 string 2024-03-02
-- $9 string prj_1
-- $10 string summer
-- $11 string BRL
-- $12 string 2024-03-01
-- $13 string 2024-03-02
-- $14 int 10001
-- $15 int 0
-- one currency
SELECT bucket, page_views, tx_revenue, fx_missing, fx_null_tx_revenue FROM (SELECT DISTINCT day AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_page_views) AS page_views, sum(toDecimal128(s_tx_revenue, 0) * toDecimal64(1, 8)) AS tx_revenue, groupUniqArrayIf(toString(currency), currency != ? AND (s_tx_revenue != 0)) AS fx_missing, toUInt8(0) AS fx_null_tx_revenue FROM (SELECT day AS bucket, currency, sum(page_views) AS s_page_views, sum(tx_revenue) AS s_tx_revenue FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) AND campaign_id IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) GROUP BY bucket, currency) AS facts GROUP BY bucket) AS facts USING (bucket) ORDER BY notEmpty(fx_missing) DESC, bucket ASC, page_views DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string 2024-03-01
-- $2 int 1
-- $3 string BRL
-- $4 string prj_1
-- $5 string 2024-03-01
-- $6 string 2024-03-02
-- $7 string prj_1
-- $8 string summer
-- $9 int 10001
-- $10 int 0
