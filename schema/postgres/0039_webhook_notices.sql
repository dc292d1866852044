-- An order webhook's connection and project are cached by its key (platform/webhooks.go): a change
-- to what it reads of the connection (its key rotated, its kind, its tracking, its project or
-- workspace) or the connection's deletion announces "connection <id>", so that every process drops
-- it on commit. A change to the project is announced already (projects_announce). A process that
-- does not know the kind forgets everything it cached, which is safe.
-- consecutive_failures and status, written by every sync, are left out: the webhook reads neither.
CREATE TRIGGER connections_webhook_announce
    AFTER DELETE OR UPDATE OF webhook_key, kind, tracking_enabled, project_id, workspace_id ON connections
    FOR EACH ROW EXECUTE FUNCTION mtk_announce_revocation('connection', 'id');
