-- Data versions (owned by facts/): what answers read has a version here, moved by every write
-- that lands data in ClickHouse, in the writer's transaction that follows the ClickHouse write.
-- The answer cache (api/answers) keys answers by the versions of what they read, so a moved
-- version is a changed answer. Rows: a project's facts per local day (kind 'facts'), its entity
-- names and its settings as a whole (day '0001-01-01'), and the exchange rates per day (project
-- ''). A move takes the next value of data_version_seq and notifies mtk_data_versions with the
-- project ('' for rates), so every mtk process learns of it (facts.Versions).
CREATE SEQUENCE data_version_seq;

CREATE TABLE data_versions (
    project_id text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('facts', 'entities', 'settings', 'rates')),
    day        date NOT NULL,
    version    bigint NOT NULL,
    PRIMARY KEY (project_id, kind, day)
);
