-- Every change that takes back a credential or moves a project's scope announces itself on the
-- channel mtk_revocations, as "<kind> <id>", from within the changing transaction (so it is heard
-- on commit, and never for a rollback), whoever makes it: the API, the CLI or SQL by hand. Every
-- mtk process listens (platform/revocations.go) and drops what it cached of that id.
-- The function takes the kind and the column holding the id; an update announces the old and the
-- new id (a connection moved to another project changes both projects' scopes).
CREATE FUNCTION mtk_announce_revocation() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('mtk_revocations', TG_ARGV[0] || ' ' || (to_jsonb(OLD) ->> TG_ARGV[1])); END IF; IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('mtk_revocations', TG_ARGV[0] || ' ' || (to_jsonb(NEW) ->> TG_ARGV[1])); END IF; RETURN NULL; END $$;

-- last_used_at, written as keys are used, is left out: it takes nothing back.
CREATE TRIGGER api_keys_announce AFTER UPDATE OF revoked_at, expires_at, scopes, workspace_id OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION mtk_announce_revocation('key', 'id');
CREATE TRIGGER revoked_tokens_announce AFTER INSERT ON revoked_tokens
    FOR EACH ROW EXECUTE FUNCTION mtk_announce_revocation('token', 'token_id');
CREATE TRIGGER users_announce AFTER UPDATE OF token_generation OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION mtk_announce_revocation('user', 'id');
-- A key's principal carries its workspace's tier.
CREATE TRIGGER workspaces_announce AFTER UPDATE OF tier OR DELETE ON workspaces
    FOR EACH ROW EXECUTE FUNCTION mtk_announce_revocation('workspace', 'id');
CREATE TRIGGER projects_announce AFTER UPDATE OR DELETE ON projects
    FOR EACH ROW EXECUTE FUNCTION mtk_announce_revocation('project', 'id');
CREATE TRIGGER connections_announce AFTER INSERT OR DELETE OR UPDATE OF project_id ON connections
    FOR EACH ROW EXECUTE FUNCTION mtk_announce_revocation('project', 'project_id');
