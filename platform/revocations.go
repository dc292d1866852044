package platform

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/recovered"
)

// revocationsChannel is the PostgreSQL channel on which every change that takes back a key or a
// login token, or moves a project's scope, is announced as "<kind> <id>" by the changing
// transaction itself (triggers of schema/postgres/0016_revocation_notices.sql).
const revocationsChannel = "mtk_revocations"

// listenSetup bounds connecting and subscribing: a PostgreSQL that does not answer is tried again.
const listenSetup = 10 * time.Second

// Listen hears revocations until ctx ends, on a connection of its own, and drops what the caches
// hold of each one as it is heard: a change committed by any process shows here milliseconds
// later, not KeyCacheTTL later. When the connection drops, or before it is up, announcements may
// be missed, so every cache is emptied then and again once listening resumes; meanwhile the TTL
// bounds what is trusted. It connects again a second after a drop, or after a panic (recovered,
// logged as a drop's cause). `mtk serve` runs it.
func (s *Services) Listen(ctx context.Context, log *slog.Logger) {
	for {
		err := recovered.Call(func() error { return s.listen(ctx) })
		s.forgetAll()
		if ctx.Err() != nil {
			return
		}
		log.Warn("revocations: not listening, cached keys, tokens and project scopes are trusted for their TTL until it is back", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (s *Services) listen(ctx context.Context) error {
	setup, cancel := context.WithTimeout(ctx, listenSetup)
	defer cancel()
	conn, err := pgx.ConnectConfig(setup, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // a dropped connection
	if _, err := conn.Exec(setup, "LISTEN "+revocationsChannel); err != nil {
		return err
	}
	s.forgetAll() // what was cached before LISTEN took effect may have missed its announcement
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		s.revoked(n.Payload)
	}
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
	default: // an announcement this version does not know: forget everything rather than miss it
		s.forgetAll()
	}
}

// forgetAll empties every cache of the hot read paths.
func (s *Services) forgetAll() {
	s.Keys.verified.Clear()
	s.Users.tokens.Clear()
	s.Projects.scopes.Clear()
}
