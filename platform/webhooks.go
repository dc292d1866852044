package platform

import (
	"context"

	"mtk/internal/apperr"
)

// WebhookConnection is the custom connection that owns an order webhook key.
type WebhookConnection struct {
	ID, ProjectID, WorkspaceID string
	// TrackingEnabled: an approved purchase produces a Purchase conversion toward the project's
	// pixels only when it is on (the default).
	TrackingEnabled bool
	// Project is the connection's project, read with it (an order webhook needs both).
	Project Project
}

// ConnectionByWebhookKey returns the custom connection of a webhook key. An unknown key is 401.
// A connection read less than KeyCacheTTL ago is not read again (a shop sends its orders with one
// key): a change to the connection's key, kind, tracking or project, or to the project, is
// announced and forgets it (Services.Subscribe). An unknown key is read every time and not
// remembered, so random keys cost a round trip each but never push the known ones out.
func (s *Connections) ConnectionByWebhookKey(ctx context.Context, key string) (WebhookConnection, error) {
	if key == "" {
		return WebhookConnection{}, UnknownWebhookKey()
	}
	return s.webhooks.Load(key, s.clock.Now(), func() (WebhookConnection, error) { return s.readWebhookConnection(ctx, key) })
}

func (s *Connections) readWebhookConnection(ctx context.Context, key string) (WebhookConnection, error) {
	var c WebhookConnection
	err := s.pool.QueryRow(ctx, `SELECT c.id, c.project_id, c.workspace_id, c.tracking_enabled, p.*
		FROM connections c CROSS JOIN LATERAL (SELECT `+projectColumns+` FROM projects WHERE id = c.project_id) p
		WHERE c.webhook_key = $1 AND c.kind = 'custom'`, key).
		Scan(append([]any{&c.ID, &c.ProjectID, &c.WorkspaceID, &c.TrackingEnabled}, c.Project.dest()...)...)
	if isNoRows(err) {
		return c, UnknownWebhookKey()
	}
	return c, err
}

// UnknownWebhookKey is the 401 of a key that names no custom connection (or whose connection was
// deleted since it was read).
func UnknownWebhookKey() error {
	return apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "Unknown webhook key: send the k of the connection's webhook_url.")
}

// forgetWebhooks drops the cached webhook connections that match.
func (s *Connections) forgetWebhooks(match func(WebhookConnection) bool) {
	s.webhooks.Forget(func(_ string, c WebhookConnection) bool { return match(c) })
}
