-- Platform entities: workspaces and their people, credentials, projects, connections and syncs.
-- Ids are opaque text with a readable prefix (ws_, usr_, key_, prj_, con_, sync_).

CREATE TABLE workspaces (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    tier        text NOT NULL DEFAULT 'default' CHECK (tier IN ('default', 'growth', 'enterprise')),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id            text PRIMARY KEY,
    email         text NOT NULL UNIQUE CHECK (email = lower(email)),
    name          text NOT NULL,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role         text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'admin', 'member')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- Only a SHA-256 of the token is stored; prefix keeps the first characters for display.
CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL,
    prefix       text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    scopes       text[] NOT NULL,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    last_used_at timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);

CREATE TABLE projects (
    id           text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL,
    description  text,
    logo         text,
    currency     text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    timezone     text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_workspace ON projects (workspace_id, created_at);

-- kind is what mtk talks to (alpha_ads, beta_ads, gamma_ads, custom); source is its display name.
CREATE TABLE connections (
    id                   text PRIMARY KEY,
    workspace_id         text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    project_id           text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind                 text NOT NULL CHECK (kind IN ('alpha_ads', 'beta_ads', 'gamma_ads', 'custom')),
    source               text NOT NULL,
    source_id            text,
    name                 text NOT NULL,
    status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'error', 'paused', 'disabled')),
    webhook_key          text UNIQUE,
    api_base_url         text,
    access_token         text,
    consecutive_failures integer NOT NULL DEFAULT 0,
    created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connections_project ON connections (project_id, created_at);
CREATE INDEX connections_source_id ON connections (workspace_id, source_id);

CREATE TABLE sync_runs (
    id            text PRIMARY KEY,
    connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    sync_type     text NOT NULL CHECK (sync_type IN ('full', 'incremental', 'backfill')),
    status        text NOT NULL CHECK (status IN ('running', 'success', 'error')),
    started_at    timestamptz NOT NULL,
    completed_at  timestamptz,
    rows_synced   bigint NOT NULL DEFAULT 0,
    error         text
);
CREATE INDEX sync_runs_connection ON sync_runs (connection_id, started_at DESC);

-- One row per (credential scope, Idempotency-Key). status is NULL while the first call runs.
CREATE TABLE idempotency_records (
    scope         text NOT NULL,
    key           text NOT NULL,
    method        text NOT NULL,
    path          text NOT NULL,
    body_hash     bytea NOT NULL,
    status        integer,
    content_type  text,
    response_body bytea,
    request_id    text,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);
