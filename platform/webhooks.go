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
}

// ConnectionByWebhookKey returns the custom connection of a webhook key. An unknown key is 401.
func (s *Connections) ConnectionByWebhookKey(ctx context.Context, key string) (WebhookConnection, error) {
	var c WebhookConnection
	err := s.pool.QueryRow(ctx, `SELECT id, project_id, workspace_id, tracking_enabled FROM connections
		WHERE webhook_key = $1 AND kind = 'custom'`, key).Scan(&c.ID, &c.ProjectID, &c.WorkspaceID, &c.TrackingEnabled)
	if isNoRows(err) || key == "" {
		return c, apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "Unknown webhook key: send the k of the connection's webhook_url.")
	}
	return c, err
}
