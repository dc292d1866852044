-- warnings: ["ad metrics are known per hour at best; answered from the hourly table at hour granularity" "ad metrics are known per hour at best; the range was widened to whole hours"]
-- currency: BRL

-- day spans
SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) AND adset_id != '' AND NOT (source IN ?) AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING NOT (argMax(name, version) IN ?)) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0 ORDER BY day
-- $1 string prj_1
-- $2 string 2024-03-01
-- $3 string 2024-03-02
-- $4 string prj_1
-- $5 string test
-- $6 clickhouse.GroupSet {[gamma_ads]}
-- $7 string prj_1
-- $8 clickhouse.GroupSet {[]}

-- attempt on facts_hourly, warnings []
-- probe
SELECT count() FROM (SELECT 1 FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? LIMIT 1)
-- $1 string prj_1
-- $2 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $3 time.Time 2024-03-01 15:00:00 +0000 UTC
-- query
SELECT bucket, source, ad_id, ad_name, impressions, video_plays, video_views_3s, has_facts, (SELECT arraySort(groupArray(day)) FROM (SELECT day FROM facts_daily_in WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) AND adset_id != '' AND NOT (source IN ?) AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING NOT (argMax(name, version) IN ?)) GROUP BY day HAVING sum(spend) != 0 OR sum(impressions) != 0 OR sum(clicks) != 0 OR sum(reach) != 0 OR sum(video_plays) != 0 OR sum(video_views_3s) != 0 OR sum(video_views_p75) != 0)) AS span_days FROM (SELECT bucket, source, ad_id, sum(s_impressions) AS impressions, sum(s_video_plays) AS video_plays, sum(s_video_views_3s) AS video_views_3s, toUInt8(count() > 0) AS has_facts FROM (SELECT toDateTime(hour, 'America/Sao_Paulo') AS bucket, source, ad_id, sum(impressions) AS s_impressions, sum(video_plays) AS s_video_plays, sum(video_views_3s) AS s_video_views_3s FROM facts_hourly WHERE project_id = ? AND hour >= ? AND hour < ? AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) AND adset_id != '' AND NOT (source IN ?) AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING NOT (argMax(name, version) IN ?)) GROUP BY bucket, source, ad_id) AS facts GROUP BY bucket, source, ad_id HAVING sum(s_impressions) != 0 OR sum(s_video_plays) != 0 OR sum(s_video_views_3s) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS ad_id, argMax(name, version) AS ad_name FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY source, entity_id) AS names USING (source, ad_id) WHERE isNull(if(impressions = 0, NULL, toFloat64(video_views_3s) / toFloat64(impressions))) ORDER BY bucket ASC, video_plays DESC NULLS LAST, source ASC, ad_id ASC LIMIT ? OFFSET ?
-- $1 string prj_1
-- $2 string 2024-03-01
-- $3 string 2024-03-02
-- $4 string prj_1
-- $5 string test
-- $6 clickhouse.GroupSet {[gamma_ads]}
-- $7 string prj_1
-- $8 clickhouse.GroupSet {[]}
-- $9 string prj_1
-- $10 time.Time 2024-03-01 13:00:00 +0000 UTC
-- $11 time.Time 2024-03-01 15:00:00 +0000 UTC
-- $12 string prj_1
-- $13 string test
-- $14 clickhouse.GroupSet {[gamma_ads]}
-- $15 string prj_1
-- $16 clickhouse.GroupSet {[]}
-- $17 string prj_1
-- $18 int 10001
-- $19 int 0

-- attempt on facts_daily, warnings ["no hourly data for this range; answered from the daily table at day granularity, with the range widened to whole days"]
-- probe
SELECT count() FROM (SELECT 1 FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) LIMIT 1)
-- $1 string prj_1
-- $2 string 2024-03-02
-- $3 string 2024-03-01
-- query
SELECT bucket, source, ad_id, ad_name, impressions, video_plays, video_views_3s FROM (SELECT bucket, source, ad_id, sum(s_impressions) AS impressions, sum(s_video_plays) AS video_plays, sum(s_video_views_3s) AS video_views_3s FROM (SELECT day AS bucket, source, ad_id, sum(impressions) AS s_impressions, sum(video_plays) AS s_video_plays, sum(video_views_3s) AS s_video_views_3s FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0) AND adset_id != '' AND NOT (source IN ?) AND ad_id NOT IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY entity_id HAVING NOT (argMax(name, version) IN ?)) GROUP BY bucket, source, ad_id) AS facts GROUP BY bucket, source, ad_id HAVING sum(s_impressions) != 0 OR sum(s_video_plays) != 0 OR sum(s_video_views_3s) != 0) AS facts ANY LEFT JOIN (SELECT source, entity_id AS ad_id, argMax(name, version) AS ad_name FROM entities WHERE project_id = ? AND level = 'ad' GROUP BY source, entity_id) AS names USING (source, ad_id) WHERE isNull(if(impressions = 0, NULL, toFloat64(video_views_3s) / toFloat64(impressions))) ORDER BY bucket ASC, video_plays DESC NULLS LAST, source ASC, ad_id ASC LIMIT ? OFFSET ?
-- $1 string prj_1
-- $2 string 2024-03-01
-- $3 string 2024-03-02
-- $4 string prj_1
-- $5 string test
-- $6 clickhouse.GroupSet {[gamma_ads]}
-- $7 string prj_1
-- $8 clickhouse.GroupSet {[]}
-- $9 string prj_1
-- $10 int 10001
-- $11 int 0
