-- The pair backfill (`mtk backfill pairs`, ingest/pairs): the projects whose business rows stored
-- before ClickHouse 0017 (business_raw.pair_rollups = 0) are not yet all in the pair rollups
-- (business_pair_daily, business_dim_entity_daily). The engine reads those rollups for a project
-- only once its row here is gone (platform.ProjectScope.PairsPending), the wide rollups until then.
-- A project made after this migration has no row: every row of it is written with pair_rollups = 1.
-- query_id is the query id prefix of the backfill's try for the project (internal/chfence),
-- recorded before it sends anything, so that a rerun first ends an interrupted try's INSERT.
CREATE TABLE pair_backfill (
    project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    query_id   text NOT NULL DEFAULT ''
);
INSERT INTO pair_backfill (project_id) SELECT id FROM projects;
