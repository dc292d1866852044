-- Synchronisation of ad networks (owned by sync/): the ad objects of each connection as last
-- synced, the per-bucket snapshot of the metrics written to ClickHouse, and the audit trail of
-- changes made through PUT /v3/connections/{id}/objects.

-- The account, campaigns, ad sets and ads of a connection as the network last described them.
-- budget_kind is '' for an object that holds no budget; budget_micros is in the account currency;
-- budget_ref is the network's handle of the budget when it is an object of its own (beta).
CREATE TABLE ad_objects (
    connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    id            text NOT NULL,
    level         text NOT NULL CHECK (level IN ('account', 'campaign', 'adset', 'ad')),
    parent_id     text NOT NULL,
    campaign_id   text NOT NULL,
    name          text NOT NULL,
    status        text NOT NULL,
    budget_kind   text NOT NULL CHECK (budget_kind IN ('', 'daily', 'lifetime')),
    budget_micros bigint NOT NULL,
    budget_ref    text NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (connection_id, id)
);
CREATE INDEX ad_objects_level ON ad_objects (connection_id, level, id);

-- What facts_* in ClickHouse hold for one ad and one bucket of the account's local time: a day
-- (hour = -1) or an hour (0-23). A sync writes the difference between what the network reports
-- and this snapshot, then stores the report here. position is where the bucket's facts live in
-- ClickHouse (raw minute, hour start in the rollups, or day in the daily rollup); it never moves.
CREATE TABLE sync_buckets (
    connection_id   text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    local_date      date NOT NULL,
    hour            smallint NOT NULL CHECK (hour BETWEEN -1 AND 23),
    ad_id           text NOT NULL,
    position        text NOT NULL CHECK (position IN ('raw', 'hourly', 'daily')),
    campaign_id     text NOT NULL,
    adset_id        text NOT NULL,
    spend           bigint NOT NULL,
    impressions     bigint NOT NULL,
    clicks          bigint NOT NULL,
    reach           bigint NOT NULL,
    video_plays     bigint NOT NULL,
    video_views_3s  bigint NOT NULL,
    video_views_p75 bigint NOT NULL,
    PRIMARY KEY (connection_id, local_date, hour, ad_id)
);

-- One line per item of PUT objects: who (an API key or a user), when, the value before and
-- after, and whether the network accepted it.
CREATE TABLE object_changes (
    id            bigserial PRIMARY KEY,
    connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    object_id     text NOT NULL,
    level         text NOT NULL CHECK (level IN ('campaign', 'adset', 'ad')),
    field         text NOT NULL CHECK (field IN ('status', 'budget')),
    before_value  text NOT NULL,
    after_value   text NOT NULL,
    ok            boolean NOT NULL,
    error         text,
    actor_kind    text NOT NULL CHECK (actor_kind IN ('api_key', 'user')),
    actor_id      text NOT NULL,
    created_at    timestamptz NOT NULL
);
CREATE INDEX object_changes_object ON object_changes (connection_id, object_id, created_at);
