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
func (s *Connections) ConnectionByWebhookKey(ctx context.Context, key string) (WebhookConnection, error) {
	var c WebhookConnection
	err := s.pool.QueryRow(ctx, `SELECT c.id, c.project_id, c.workspace_id, c.tracking_enabled, p.*
		FROM connections c CROSS JOIN LATERAL (SELECT `+projectColumns+` FROM projects WHERE id = c.project_id) p
		WHERE c.webhook_key = $1 AND c.kind = 'custom'`, key).
		Scan(append([]any{&c.ID, &c.ProjectID, &c.WorkspaceID, &c.TrackingEnabled}, c.Project.dest()...)...)
	if isNoRows(err) || key == "" {
		return c, apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "Unknown webhook key: send the k of the connection's webhook_url.")
	}
	return c, err
}
