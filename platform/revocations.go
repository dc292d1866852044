package platform

import (
	"strings"

	"mtk/internal/pglisten"
)

// revocationsChannel is the PostgreSQL channel on which every change that takes back a key or a
// login token, moves a project's scope or changes what an order webhook reads of its connection,
// is announced as "<kind> <id>" by the changing transaction itself (triggers of
// schema/postgres/0016_revocation_notices.sql and 0039_webhook_notices.sql).
const revocationsChannel = "mtk_revocations"

// Subscribe has d hear revocations and drop what the caches hold of each one as it is heard: a
// change committed by any process shows here milliseconds later, not KeyCacheTTL later. While d
// does not listen (before it connects, after a drop) announcements may be missed, so every cache
// is emptied when the connection drops and again once listening resumes; meanwhile the TTL bounds
// what is trusted. `mtk serve` subscribes its dispatcher (internal/wire).
func (s *Services) Subscribe(d *pglisten.Dispatcher) error {
	return d.Handle(revocationsChannel, pglisten.Subscriber{Notify: s.revoked, Up: s.forgetAll, Down: s.forgetAll})
}

// revoked drops what the caches hold of one announcement's id.
func (s *Services) revoked(payload string) {
	kind, id, _ := strings.Cut(payload, " ")
	switch kind {
	case "key":
		s.Keys.forgetKeys(id)
	case "token":
		s.Users.tokens.Forget(func(tokenID string, _ tokenState) bool { return tokenID == id })
	case "user":
		s.Users.tokens.Forget(func(_ string, st tokenState) bool { return st.userID == id })
	case "workspace":
		s.Keys.verified.Forget(func(_ string, k cachedKey) bool { return k.principal.WorkspaceID == id })
		s.Projects.scopes.Forget(func(_ string, sc ProjectScope) bool { return sc.WorkspaceID == id })
	case "project":
		s.Projects.forgetScope(id)
		s.Connections.forgetWebhooks(func(c WebhookConnection) bool { return c.ProjectID == id })
	case "connection":
		s.Connections.forgetWebhooks(func(c WebhookConnection) bool { return c.ID == id })
	default: // an announcement this version does not know: forget everything rather than miss it
		s.forgetAll()
	}
}

// forgetAll empties every cache of the hot read paths.
func (s *Services) forgetAll() {
	s.Keys.verified.Clear()
	s.Users.tokens.Clear()
	s.Projects.scopes.Clear()
	s.Connections.webhooks.Clear()
}
