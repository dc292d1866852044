-- Click ids are random numbers below 2^53 that mtk chooses (platform/links.go), so that the ids a
-- workspace sees say nothing of other workspaces' clicks. The sequence that numbered them goes;
-- clicks it numbered keep their ids and keep decoding.
ALTER TABLE link_clicks ALTER COLUMN id DROP DEFAULT;
DROP SEQUENCE link_clicks_id_seq;
