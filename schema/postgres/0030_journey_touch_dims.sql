-- A journey touch carries its traffic dimensions through the journey outbox into ClickHouse's
-- journeys_by_lead (schema/clickhouse/0013): every marketing touch of a lead, with or without an
-- ad entity. Order and merge rows leave them empty.
ALTER TABLE journey_outbox ADD COLUMN utm_source text NOT NULL DEFAULT '',
    ADD COLUMN utm_medium text NOT NULL DEFAULT '',
    ADD COLUMN utm_campaign text NOT NULL DEFAULT '',
    ADD COLUMN utm_content text NOT NULL DEFAULT '',
    ADD COLUMN utm_term text NOT NULL DEFAULT '',
    ADD COLUMN referrer_host text NOT NULL DEFAULT '',
    ADD COLUMN landing_path text NOT NULL DEFAULT '',
    ADD COLUMN device text NOT NULL DEFAULT '';

-- version is the journey backfill's version a project was done at: 1 copied the ad touches without
-- dimensions, 2 (ingest/journeys.BackfillVersion) every marketing touch with its dimensions. A run
-- of `mtk backfill journeys` visits the projects done at an older version again.
ALTER TABLE journey_backfill ADD COLUMN version integer NOT NULL DEFAULT 1;
