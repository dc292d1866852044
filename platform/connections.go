package platform

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/internal/apperr"
	"mtk/internal/ids"
	"mtk/internal/ttlcache"
)

// The connection kinds: the three ad networks and custom (webhook) connections.
const (
	KindAlpha  = "alpha_ads"
	KindBeta   = "beta_ads"
	KindGamma  = "gamma_ads"
	KindCustom = "custom"
)

// CustomSource is the display name of a custom connection, as the spec names it.
const CustomSource = "Personalizado"

// The connection statuses of the contract.
const (
	ConnActive   = "active"
	ConnError    = "error"
	ConnPaused   = "paused"
	ConnDisabled = "disabled"
)

// Connections keeps the connections of projects and the record of their syncs, and remembers
// the connections of order webhook keys for KeyCacheTTL.
type Connections struct {
	db
	projects   *Projects
	workspaces *Workspaces
	webhooks   *ttlcache.Cache[string, WebhookConnection]
}

// Connection is a data source of a project: an ad account, or a custom webhook.
type Connection struct {
	ID          string  `json:"id"`
	Source      string  `json:"source"`
	SourceID    *string `json:"source_id"`
	Name        string  `json:"name"`
	Status      string  `json:"status"`
	WorkspaceID string  `json:"workspace_id"`
	WebhookURL  *string `json:"webhook_url"`

	ProjectID           string    `json:"project_id"`
	Kind                string    `json:"-"`
	WebhookKey          string    `json:"-"`
	APIBaseURL          string    `json:"-"`
	AccessToken         string    `json:"-"`
	ConsecutiveFailures int       `json:"-"`
	CreatedAt           time.Time `json:"created_at"`
}

// ConnectionInput is what creating a connection takes.
type ConnectionInput struct {
	ProjectID   string
	Kind        string
	Name        string
	SourceID    string // the account id at the network; empty for custom
	APIBaseURL  string // where the network's API answers (adsim in development)
	AccessToken string
}

var alphaAccount = regexp.MustCompile(`^(act_)?[0-9]+$`)

// Validate names every problem.
func (in ConnectionInput) Validate() error {
	var problems []string
	switch in.Kind {
	case KindAlpha, KindBeta, KindGamma:
		if in.SourceID == "" {
			problems = append(problems, "source_id: required for an ad network connection")
		}
		if in.Kind == KindAlpha && in.SourceID != "" && !alphaAccount.MatchString(in.SourceID) {
			problems = append(problems, fmt.Sprintf("source_id: %q is not an ad account id (act_<digits>)", in.SourceID))
		}
	case KindCustom:
		if in.SourceID != "" {
			problems = append(problems, "source_id: a custom connection has none")
		}
	default:
		problems = append(problems, fmt.Sprintf("kind: %q is not one of alpha_ads, beta_ads, gamma_ads, custom", in.Kind))
	}
	if in.Name == "" {
		problems = append(problems, "name: required")
	}
	if len(problems) > 0 {
		return apperr.Invalid("Invalid connection.", problems...)
	}
	return nil
}

// CreateConnection makes a connection of a project. A custom connection gets a webhook key.
func (s *Connections) CreateConnection(ctx context.Context, in ConnectionInput) (Connection, error) {
	if err := in.Validate(); err != nil {
		return Connection{}, err
	}
	p, err := s.projects.Project(ctx, in.ProjectID)
	if err != nil {
		return Connection{}, err
	}
	c := Connection{
		ID: ids.New(ids.Connection), Source: in.Kind, SourceID: optional(in.SourceID), Name: in.Name,
		Status: ConnActive, WorkspaceID: p.WorkspaceID, ProjectID: p.ID, Kind: in.Kind,
		APIBaseURL: in.APIBaseURL, AccessToken: in.AccessToken, CreatedAt: s.clock.Now(),
	}
	defer s.projects.forgetScope(p.ID)
	var webhookKey *string
	if in.Kind == KindCustom {
		c.Source = CustomSource
		c.WebhookKey = "whk_" + ids.Random(20)
		webhookKey = &c.WebhookKey
	}
	// The project's answers read its connections: their settings version moves with the insert.
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO connections
			(id, workspace_id, project_id, kind, source, source_id, name, status, webhook_key, api_base_url, access_token, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			c.ID, c.WorkspaceID, c.ProjectID, c.Kind, c.Source, c.SourceID, c.Name, c.Status, webhookKey,
			optional(c.APIBaseURL), optional(c.AccessToken), c.CreatedAt); err != nil {
			return err
		}
		return facts.Moved(ctx, tx, []facts.Change{facts.SettingsOf(c.ProjectID)})
	})
	return c, err
}

const connectionColumns = `id, source, source_id, name, status, workspace_id, project_id, kind,
	coalesce(webhook_key, ''), coalesce(api_base_url, ''), coalesce(access_token, ''), consecutive_failures, created_at`

func scanConnection(row pgx.CollectableRow) (Connection, error) {
	var c Connection
	err := row.Scan(&c.ID, &c.Source, &c.SourceID, &c.Name, &c.Status, &c.WorkspaceID, &c.ProjectID, &c.Kind,
		&c.WebhookKey, &c.APIBaseURL, &c.AccessToken, &c.ConsecutiveFailures, &c.CreatedAt)
	return c, err
}

// WithWebhookURL fills WebhookURL for custom connections: {baseURL}/v2/tracking/generic?k=<key>.
func (c Connection) WithWebhookURL(baseURL string) Connection {
	if c.Kind == KindCustom && c.WebhookKey != "" {
		u := baseURL + "/v2/tracking/generic?k=" + c.WebhookKey
		c.WebhookURL = &u
	}
	return c
}

// ListConnections lists a project's connections, oldest first.
func (s *Connections) ListConnections(ctx context.Context, projectID string) ([]Connection, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+connectionColumns+" FROM connections WHERE project_id = $1 ORDER BY created_at, id", projectID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanConnection)
}

// ConnectionIn returns a connection of one of workspaceIDs by its id or, for the first network,
// by its ad account id (act_<digits> or <digits>). Another workspace's connection is not found.
func (s *Connections) ConnectionIn(ctx context.Context, workspaceIDs []string, ref string) (Connection, error) {
	query := "SELECT " + connectionColumns + " FROM connections WHERE workspace_id = ANY($1) AND id = $2"
	if alphaAccount.MatchString(ref) {
		query = "SELECT " + connectionColumns + ` FROM connections WHERE workspace_id = ANY($1) AND kind = 'alpha_ads'
			AND source_id IN ($2, 'act_' || $2, substr($2, 5)) ORDER BY created_at, id LIMIT 1`
	}
	return queryOne(ctx, s.db, scanConnection, apperr.NotFound("Connection not found."), query, workspaceIDs, ref)
}

// Connection returns a connection by its id, whatever its workspace (for operators' commands).
func (s *Connections) Connection(ctx context.Context, id string) (Connection, error) {
	return queryOne(ctx, s.db, scanConnection, apperr.NotFound("Connection not found."),
		"SELECT "+connectionColumns+" FROM connections WHERE id = $1", id)
}

// SetConnectionAPI points an ad network connection at another account, API root or token.
func (s *Connections) SetConnectionAPI(ctx context.Context, id, sourceID, apiBaseURL, accessToken string) error {
	_, err := s.pool.Exec(ctx, `UPDATE connections SET source_id = $2, api_base_url = $3, access_token = $4 WHERE id = $1`,
		id, sourceID, apiBaseURL, accessToken)
	return err
}

// APICredentials are where an ad network's API answers for a connection, and its token.
type APICredentials struct{ BaseURL, AccessToken string }

// ConversionCredentials returns what a project's conversions are sent to the first network with:
// the credentials of its oldest active alpha_ads connection that has both. ok is false when none
// has.
func (s *Connections) ConversionCredentials(ctx context.Context, projectID string) (c APICredentials, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT api_base_url, access_token FROM connections WHERE project_id = $1
		AND kind = 'alpha_ads' AND status = 'active' AND api_base_url IS NOT NULL AND access_token IS NOT NULL
		ORDER BY created_at, id LIMIT 1`, projectID).Scan(&c.BaseURL, &c.AccessToken)
	if isNoRows(err) {
		return c, false, nil
	}
	return c, err == nil, err
}
