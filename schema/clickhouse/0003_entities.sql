-- The entity dimension (owned by engine/): one row per version of an ad account, campaign, ad set
-- or ad. The latest version wins; readers use argMax(..., version) because merges may not have
-- happened. level is account, campaign, adset or ad; parent_id is the id one level up ('' for
-- accounts).
CREATE TABLE IF NOT EXISTS entities (
    project_id String,
    source     String,
    level      String,
    entity_id  String,
    name       String,
    parent_id  String,
    version    UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, level, source, entity_id);
