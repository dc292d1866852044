-- warnings: []
-- currency: BRL

-- attempt on facts_daily, warnings []
-- query
SELECT bucket, impressions, clicks FROM (SELECT DISTINCT day AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)) AS series ANY LEFT JOIN (SELECT bucket, sum(s_impressions) AS impressions, sum(s_clicks) AS clicks FROM (SELECT day AS bucket, sum(impressions) AS s_impressions, sum(clicks) AS s_clicks FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?) AND source = ? AND connection_id IN ? AND campaign_id IN (SELECT entity_id FROM entities WHERE project_id = ? AND level = 'campaign' GROUP BY entity_id HAVING (positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0 OR positionCaseInsensitiveUTF8(argMax(name, version), ?) > 0)) GROUP BY bucket) AS facts GROUP BY bucket) AS facts USING (bucket) WHERE if(impressions = 0, NULL, toFloat64(clicks) / toFloat64(impressions)) > ? ORDER BY bucket ASC, clicks DESC NULLS LAST LIMIT ? OFFSET ?
-- $1 string 2024-03-01
-- $2 int 7
-- $3 string prj_1
-- $4 string 2024-03-01
-- $5 string 2024-03-08
-- $6 string alpha_ads
-- $7 clickhouse.GroupSet {[con_a]}
-- $8 string prj_1
-- $9 string summer
-- $10 string winter
-- $11 float64 0.01
-- $12 int 10001
-- $13 int 0
