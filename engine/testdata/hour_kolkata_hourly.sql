-- warnings: []
-- currency: EUR

-- day spans
SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0 ORDER BY day
-- $1 string prj_1
-- $2 string 2024-03-01
-- $3 string 2024-03-03

-- attempt on facts_hourly, warnings []
-- probe
SELECT count() FROM (SELECT 1 FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-03-01 04:30:00 +0000 UTC
-- $3 time.Time 2024-03-02 04:30:00 +0000 UTC
-- query
SELECT bucket, impressions, alpha_impressions, reach, has_facts, (SELECT arraySort(groupArray(day)) FROM (SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0)) AS span_days FROM (SELECT DISTINCT toDateTime(hour, 'Asia/Kolkata') AS bucket FROM (SELECT toStartOfHour(toDateTime(? + number * 300), 'Asia/Kolkata') AS hour FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_impressions) AS impressions, sum(s_alpha_impressions) AS alpha_impressions, sum(s_reach) AS reach, toUInt8(count() > 0) AS has_facts FROM (SELECT toDateTime(hour, 'Asia/Kolkata') AS bucket, sum(impressions) AS s_impressions, sum(if(source = 'alpha_ads', impressions, 0)) AS s_alpha_impressions, sum(reach) AS s_reach FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY bucket) AS facts GROUP BY bucket) AS facts USING (bucket) ORDER BY bucket ASC, impressions DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string prj_1
-- $2 string 2024-03-01
-- $3 string 2024-03-03
-- $4 int64 1709267400
-- $5 int64 288
-- $6 string prj_1
-- $7 time.Time 2024-03-01 04:30:00 +0000 UTC
-- $8 time.Time 2024-03-02 04:30:00 +0000 UTC
-- $9 int 10001
-- $10 int 0

-- attempt on facts_daily, warnings ["no hourly data for this range; answered from the daily table at day granularity, with the range widened to whole days"]
-- probe
SELECT count() FROM (SELECT 1 FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) LIMIT 1)
-- $1 string prj_1
-- $2 string 2024-03-02
-- $3 string 2024-03-02
-- query
SELECT bucket, impressions, alpha_impressions, reach FROM (SELECT DISTINCT day AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_impressions) AS impressions, sum(s_alpha_impressions) AS alpha_impressions, sum(s_reach) AS reach FROM (SELECT day AS bucket, sum(impressions) AS s_impressions, sum(if(source = 'alpha_ads', impressions, 0)) AS s_alpha_impressions, sum(reach) AS s_reach FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY bucket) AS facts GROUP BY bucket) AS facts USING (bucket) ORDER BY bucket ASC, impressions DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string 2024-03-01
-- $2 int 2
-- $3 string prj_1
-- $4 string 2024-03-01
-- $5 string 2024-03-03
-- $6 int 10001
-- $7 int 0
