-- OAuth 2.0 for third-party platforms (api/oauth*.go, platform/oauth*.go). A client is a
-- platform registered with `mtk oauth-client create`; a public one has no secret and proves
-- itself with PKCE alone. An authorization code is kept as the SHA-256 of its value, single use
-- and short lived; redeeming it creates an ordinary API key of the workspace, marked with the
-- client that it was issued to (api_keys.oauth_client_id), and the code remembers that key so
-- that a second redemption revokes it (RFC 6749 section 4.1.2).
CREATE TABLE oauth_clients (
    id            text PRIMARY KEY,
    name          text NOT NULL,
    redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) > 0),
    scopes        text[] NOT NULL CHECK (cardinality(scopes) > 0),
    secret_hash   bytea,
    created_at    timestamptz NOT NULL,
    revoked_at    timestamptz
);

ALTER TABLE api_keys ADD COLUMN oauth_client_id text REFERENCES oauth_clients (id);
ALTER TABLE api_keys ADD COLUMN granted_by text REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX api_keys_oauth_client ON api_keys (oauth_client_id) WHERE oauth_client_id IS NOT NULL;

CREATE TABLE oauth_codes (
    code_hash      bytea PRIMARY KEY,
    client_id      text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    workspace_id   text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    redirect_uri   text NOT NULL,
    scopes         text[] NOT NULL,
    code_challenge text NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz,
    key_id         text REFERENCES api_keys (id) ON DELETE SET NULL
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);
