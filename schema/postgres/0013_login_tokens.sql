-- Login tokens (JWTs) that can be taken back (platform/tokens.go). Every token carries its user's
-- token generation, which a password change moves on, so that the tokens issued before it are
-- refused. Logging out revokes one token by its id (jti) until it would have expired anyway; the
-- revoked-tokens-purge job then deletes the row.
ALTER TABLE users ADD COLUMN token_generation bigint NOT NULL DEFAULT 0;

CREATE TABLE revoked_tokens (
    token_id   text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);
