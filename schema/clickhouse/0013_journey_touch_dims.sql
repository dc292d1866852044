-- A journey touch's traffic dimensions (facts.TouchDims): every marketing touch of a lead is a
-- journey touch now, whether or not its UTM resolves to an ad entity (CONTRACT "Query: views,
-- cross-channel attribution and identity"), and carries its utm_*, referrer_host, landing_path and
-- device as the business family keys the same event, so that credits group by them. Order and
-- merge rows leave them empty. Rows written before this migration read '' here: the journeys
-- backfill (ingest/journeys, version 2) writes each stored touch again with its dimensions, and
-- the credit worker reads the one touch with its dimensions (ingest/credits/read.go).
ALTER TABLE journeys ADD COLUMN utm_source String DEFAULT '', ADD COLUMN utm_medium String DEFAULT '',
    ADD COLUMN utm_campaign String DEFAULT '', ADD COLUMN utm_content String DEFAULT '',
    ADD COLUMN utm_term String DEFAULT '', ADD COLUMN referrer_host String DEFAULT '',
    ADD COLUMN landing_path String DEFAULT '', ADD COLUMN device String DEFAULT '';

ALTER TABLE journeys_by_lead ADD COLUMN utm_source String DEFAULT '', ADD COLUMN utm_medium String DEFAULT '',
    ADD COLUMN utm_campaign String DEFAULT '', ADD COLUMN utm_content String DEFAULT '',
    ADD COLUMN utm_term String DEFAULT '', ADD COLUMN referrer_host String DEFAULT '',
    ADD COLUMN landing_path String DEFAULT '', ADD COLUMN device String DEFAULT '';
