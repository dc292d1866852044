-- Write-ahead batches of sync (owned by sync/). A run that has fact differences to write first
-- stores them here as a pending batch, in the transaction that stores the connection's objects;
-- then it writes the batch's facts to ClickHouse, every row carrying the batch's id (one INSERT
-- per landing table: facts_raw, facts_hourly_in, facts_daily_in); then, in one transaction, it
-- applies the batch's bucket states to sync_buckets and marks the batch applied. A batch left
-- pending by a failure is completed by the connection's next run before anything else: the rows
-- ClickHouse lacks are written, then the snapshot is applied. So each batch lands exactly once.

-- One batch: everything needed to rebuild its fact rows exactly as they were first written.
-- id is the id of the run that made it (and the batch_id of its ClickHouse rows); written_at is
-- that run's clock, which places raw facts; the zones are those the run placed facts with.
CREATE TABLE sync_batches (
    id            text PRIMARY KEY,
    connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    status        text NOT NULL CHECK (status IN ('pending', 'applied')),
    project_id    text NOT NULL,
    source        text NOT NULL,
    account_id    text NOT NULL,
    currency      text NOT NULL,
    account_tz    text NOT NULL,
    project_tz    text NOT NULL,
    written_at    timestamptz NOT NULL,
    fact_rows     integer NOT NULL,
    created_at    timestamptz NOT NULL,
    applied_at    timestamptz
);
-- A run completes its connection's pending batch before making another: at most one is pending.
CREATE UNIQUE INDEX sync_batches_pending ON sync_batches (connection_id) WHERE status = 'pending';
CREATE INDEX sync_batches_applied ON sync_batches (connection_id, applied_at);

-- The changed buckets of a batch: the bucket's new state (what sync_buckets will hold) and the
-- signed difference written to ClickHouse. Deleted once the batch is applied.
CREATE TABLE sync_batch_changes (
    batch_id              text NOT NULL REFERENCES sync_batches (id) ON DELETE CASCADE,
    local_date            date NOT NULL,
    hour                  smallint NOT NULL CHECK (hour BETWEEN -1 AND 23),
    ad_id                 text NOT NULL,
    position              text NOT NULL CHECK (position IN ('raw', 'hourly', 'daily')),
    campaign_id           text NOT NULL,
    adset_id              text NOT NULL,
    spend                 bigint NOT NULL,
    impressions           bigint NOT NULL,
    clicks                bigint NOT NULL,
    reach                 bigint NOT NULL,
    video_plays           bigint NOT NULL,
    video_views_3s        bigint NOT NULL,
    video_views_p75       bigint NOT NULL,
    delta_spend           bigint NOT NULL,
    delta_impressions     bigint NOT NULL,
    delta_clicks          bigint NOT NULL,
    delta_reach           bigint NOT NULL,
    delta_video_plays     bigint NOT NULL,
    delta_video_views_3s  bigint NOT NULL,
    delta_video_views_p75 bigint NOT NULL,
    PRIMARY KEY (batch_id, local_date, hour, ad_id)
);
