-- warnings: ["granularity 30min is not available on the default tier; answered at hour granularity" "ad metrics are known per hour at best; the range was widened to whole hours"]
-- currency: USD

-- day spans
SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0 ORDER BY day
-- $1 string prj_1
-- $2 string 2024-03-09
-- $3 string 2024-03-12

-- attempt on facts_hourly, warnings []
-- probe
SELECT count() FROM (SELECT 1 FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-03-09 10:00:00 +0000 UTC
-- $3 time.Time 2024-03-11 11:00:00 +0000 UTC
-- query
SELECT bucket, spend, leads, fx_missing, fx_null_spend, has_facts, (SELECT arraySort(groupArray(day)) FROM (SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0)) AS span_days FROM (SELECT DISTINCT toDateTime(hour, 'America/New_York') AS bucket FROM (SELECT toStartOfHour(toDateTime(? + number * 300), 'America/New_York') AS hour FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_leads) AS leads, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_spend != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_spend != 0) > 0) AS fx_null_spend, toUInt8(count() > 0) AS has_facts FROM (SELECT toDateTime(hour, 'America/New_York') AS bucket, day, currency, sum(spend) AS s_spend, sum(leads) AS s_leads FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY bucket, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket) AS facts USING (bucket) ORDER BY bucket ASC, leads DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string prj_1
-- $2 string 2024-03-09
-- $3 string 2024-03-12
-- $4 int64 1709978400
-- $5 int64 588
-- $6 string USD
-- $7 string USD
-- $8 string USD
-- $9 string prj_1
-- $10 time.Time 2024-03-09 10:00:00 +0000 UTC
-- $11 time.Time 2024-03-11 11:00:00 +0000 UTC
-- $12 string USD
-- $13 string 2024-03-09
-- $14 string 2024-03-12
-- $15 int 10001
-- $16 int 0
-- one currency
SELECT bucket, spend, leads, fx_missing, fx_null_spend, has_facts, (SELECT arraySort(groupArray(day)) FROM (SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0)) AS span_days FROM (SELECT DISTINCT toDateTime(hour, 'America/New_York') AS bucket FROM (SELECT toStartOfHour(toDateTime(? + number * 300), 'America/New_York') AS hour FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(toDecimal128(s_spend, 0) * toDecimal64(1, 8)) AS spend, sum(s_leads) AS leads, groupUniqArrayIf(toString(currency), currency != ? AND (s_spend != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend, toUInt8(count() > 0) AS has_facts FROM (SELECT toDateTime(hour, 'America/New_York') AS bucket, currency, sum(spend) AS s_spend, sum(leads) AS s_leads FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY bucket, currency) AS facts GROUP BY bucket) AS facts USING (bucket) ORDER BY notEmpty(fx_missing) DESC, bucket ASC, leads DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string prj_1
-- $2 string 2024-03-09
-- $3 string 2024-03-12
-- $4 int64 1709978400
-- $5 int64 588
-- $6 string USD
-- $7 string prj_1
-- $8 time.Time 2024-03-09 10:00:00 +0000 UTC
-- $9 time.Time 2024-03-11 11:00:00 +0000 UTC
-- $10 int 10001
-- $11 int 0
-- lean
SELECT bucket, spend, leads, fx_missing, fx_null_spend, has_facts, (SELECT arraySort(groupArray(day)) FROM (SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0)) AS span_days FROM (SELECT DISTINCT toDateTime(hour, 'America/New_York') AS bucket FROM (SELECT toStartOfHour(toDateTime(? + number * 300), 'America/New_York') AS hour FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_leads) AS leads, groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND (s_spend != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend, toUInt8(count() > 0) AS has_facts FROM (SELECT toDateTime(hour, 'America/New_York') AS bucket, day, currency, sum(spend) AS s_spend, sum(leads) AS s_leads FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY bucket, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket) AS facts USING (bucket) ORDER BY notEmpty(fx_missing) DESC, bucket ASC, leads DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string prj_1
-- $2 string 2024-03-09
-- $3 string 2024-03-12
-- $4 int64 1709978400
-- $5 int64 588
-- $6 string USD
-- $7 string USD
-- $8 string prj_1
-- $9 time.Time 2024-03-09 10:00:00 +0000 UTC
-- $10 time.Time 2024-03-11 11:00:00 +0000 UTC
-- $11 string USD
-- $12 string 2024-03-09
-- $13 string 2024-03-12
-- $14 int 10001
-- $15 int 0

-- attempt on facts_daily, warnings ["no hourly data for this range; answered from the daily table at day granularity, with the range widened to whole days"]
-- probe
SELECT count() FROM (SELECT 1 FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) LIMIT 1)
-- $1 string prj_1
-- $2 string 2024-03-10
-- $3 string 2024-03-11
-- query
SELECT bucket, spend, leads, fx_missing, fx_null_spend FROM (SELECT DISTINCT day AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_leads) AS leads, groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND (s_spend != 0)) AS fx_missing, toUInt8(countIf(currency != ? AND has_rate = 0 AND s_spend != 0) > 0) AS fx_null_spend FROM (SELECT day AS bucket, day, currency, sum(spend) AS s_spend, sum(leads) AS s_leads FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY bucket, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket) AS facts USING (bucket) ORDER BY bucket ASC, leads DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string 2024-03-09
-- $2 int 3
-- $3 string USD
-- $4 string USD
-- $5 string USD
-- $6 string prj_1
-- $7 string 2024-03-09
-- $8 string 2024-03-12
-- $9 string USD
-- $10 string 2024-03-09
-- $11 string 2024-03-12
-- $12 int 10001
-- $13 int 0
-- one currency
SELECT bucket, spend, leads, fx_missing, fx_null_spend FROM (SELECT DISTINCT day AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(toDecimal128(s_spend, 0) * toDecimal64(1, 8)) AS spend, sum(s_leads) AS leads, groupUniqArrayIf(toString(currency), currency != ? AND (s_spend != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend FROM (SELECT day AS bucket, currency, sum(spend) AS s_spend, sum(leads) AS s_leads FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY bucket, currency) AS facts GROUP BY bucket) AS facts USING (bucket) ORDER BY notEmpty(fx_missing) DESC, bucket ASC, leads DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string 2024-03-09
-- $2 int 3
-- $3 string USD
-- $4 string prj_1
-- $5 string 2024-03-09
-- $6 string 2024-03-12
-- $7 int 10001
-- $8 int 0
-- lean
SELECT bucket, spend, leads, fx_missing, fx_null_spend FROM (SELECT DISTINCT day AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(toDecimal128(s_spend, 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS spend, sum(s_leads) AS leads, groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND (s_spend != 0)) AS fx_missing, toUInt8(0) AS fx_null_spend FROM (SELECT day AS bucket, day, currency, sum(spend) AS s_spend, sum(leads) AS s_leads FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY bucket, day, currency) AS facts ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency) GROUP BY bucket) AS facts USING (bucket) ORDER BY notEmpty(fx_missing) DESC, bucket ASC, leads DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string 2024-03-09
-- $2 int 3
-- $3 string USD
-- $4 string USD
-- $5 string prj_1
-- $6 string 2024-03-09
-- $7 string 2024-03-12
-- $8 string USD
-- $9 string 2024-03-09
-- $10 string 2024-03-12
-- $11 int 10001
-- $12 int 0
