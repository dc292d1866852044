package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/adsync"
	"mtk/answers"
	"mtk/api/idempotency"
	"mtk/api/ratelimit"
	"mtk/engine"
	"mtk/ingest/events"
	"mtk/ingest/orders"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/platform"
	"mtk/tag"
)

// Deps is what the HTTP layer serves: each field a narrow interface of the calls its handlers
// make, so that api depends on what it asks for and not on how mtk is put together. The wiring
// (wire.System.API) fills it; every field is required but Metrics and Limits.
type Deps struct {
	Config config.Config
	Clock  clock.Clock
	Log    *slog.Logger
	// Metrics, when set, counts the requests and serves /metrics.
	Metrics Metrics
	// Limits keeps the rate limits on Redis, shared by every replica; nil keeps them in-process.
	Limits *ratelimit.Redis

	// Postgres and ClickHouse are the stores that /readyz asks.
	Postgres, ClickHouse Pinger
	// Idempotency keeps the records of the Idempotency-Key middleware.
	Idempotency *idempotency.Store

	// The platform's entities (platform.Services).
	Users       Users
	Keys        Keys
	Projects    Projects
	Connections Connections
	Containers  Containers
	Links       Links
	OAuth       OAuth

	// The services that read and write the facts.
	Answers Answers
	Events  Events
	Stats   TriggerStats
	Orders  Orders
	Fires   Fires
	Objects Objects
	Scripts Scripts
}

// Metrics is what the API measures (internal/metrics.Metrics).
type Metrics interface {
	Request(route, method string, status int, took time.Duration)
	RateLimitFailed(limit string)
	Handler() http.Handler
}

// Pinger is a store that /readyz asks whether it answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Users signs people in and answers what they may do (platform.Users).
type Users interface {
	Login(ctx context.Context, email, password string) (platform.User, string, error)
	VerifyLoginToken(ctx context.Context, t auth.LoginToken) error
	RevokeLoginToken(ctx context.Context, t auth.LoginToken) error
	Membership(ctx context.Context, userID, workspaceID string) (platform.Membership, bool, error)
	WorkspaceIDsOf(ctx context.Context, userID string) ([]string, error)
	Manages(ctx context.Context, userID, workspaceID string) (bool, error)
	ManagedWorkspaces(ctx context.Context, userID string) ([]platform.ManagedWorkspace, error)
}

// Keys verifies API keys (platform.Keys).
type Keys interface {
	VerifyAPIKey(ctx context.Context, token string) (*auth.Principal, error)
}

// Projects reads projects (platform.Projects).
type Projects interface {
	ListProjects(ctx context.Context, workspaceIDs ...string) ([]platform.Project, error)
	Project(ctx context.Context, id string) (platform.Project, error)
	ProjectScope(ctx context.Context, id string) (platform.ProjectScope, error)
}

// Connections reads ad-network connections and their syncs (platform.Connections).
type Connections interface {
	ListConnections(ctx context.Context, projectID string) ([]platform.Connection, error)
	ConnectionIn(ctx context.Context, workspaceIDs []string, ref string) (platform.Connection, error)
	ConnectionByWebhookKey(ctx context.Context, key string) (platform.WebhookConnection, error)
	SyncStatusOf(ctx context.Context, c platform.Connection) (platform.SyncStatus, error)
}

// Containers reads tag containers and keeps their triggers (platform.Containers).
type Containers interface {
	ContainerIn(ctx context.Context, workspaceID, ref string) (platform.Container, error)
	ContainerForHost(ctx context.Context, host string) (platform.Container, error)
	WorkspaceContainers(ctx context.Context, workspaceID string) ([]platform.Container, error)
	TriggerEventsIn(ctx context.Context, workspaceID, ref string) (platform.TriggerEvents, error)
	ListTriggers(ctx context.Context, workspaceID, containerRef string, q platform.TriggerQuery) (platform.TriggerPage, error)
	CreateTriggerAs(ctx context.Context, access platform.TriggerAccess, workspaceID, containerRef string, in platform.TriggerInput) (platform.Trigger, error)
	UpdateTriggerAs(ctx context.Context, access platform.TriggerAccess, workspaceID, containerRef, triggerID string, in platform.TriggerInput) (platform.Trigger, error)
	DeleteTriggerAs(ctx context.Context, access platform.TriggerAccess, workspaceID, containerRef, triggerID string) error
}

// Links makes and follows tracking links (platform.Links).
type Links interface {
	CreateLink(ctx context.Context, workspaceID, baseURL string, in platform.LinkInput) (platform.Link, error)
	FollowLink(ctx context.Context, slug string, click platform.Click, hook platform.ClickHook) (string, error)
	DecodeMessages(ctx context.Context, workspaceID string, texts []string) ([]platform.DecodedMessage, error)
}

// OAuth is the authorization server's clients, codes and grants (platform.OAuth).
type OAuth interface {
	ActiveOAuthClient(ctx context.Context, id string) (platform.OAuthClient, bool, error)
	AuthenticateOAuthClient(ctx context.Context, id, secret string) (platform.OAuthClient, error)
	IssueCode(ctx context.Context, g platform.CodeGrant) (string, error)
	RedeemCode(ctx context.Context, r platform.Redemption) (platform.APIKey, error)
	RevokeOAuthToken(ctx context.Context, client platform.OAuthClient, token string) error
	ListGrants(ctx context.Context, workspaceID string) ([]platform.APIKey, error)
	RevokeGrant(ctx context.Context, workspaceID, keyID string) (platform.APIKey, error)
}

// Answers answers metrics queries (answers.Service).
type Answers interface {
	Query(ctx context.Context, r answers.Request) (answers.Answer, error)
	Explain(ctx context.Context, scope engine.Scope, in engine.QueryInput) ([]byte, error)
}

// Events resolves where an event goes and tracks it (events.Service).
type Events interface {
	PublicTarget(ctx context.Context, domain string) (events.Target, error)
	KeyTarget(ctx context.Context, workspaceID, domain string) (events.Target, error)
	ContainerTarget(ctx context.Context, workspaceID, ref string) (events.Target, error)
	Track(ctx context.Context, t events.Target, in events.Input, meta events.Meta, raw []byte) (events.Result, error)
}

// TriggerStats reads each of a container's triggers' last firing and 24-hour count from the
// events table (events.TriggerStats over ClickHouse).
type TriggerStats func(ctx context.Context, te platform.TriggerEvents, now time.Time) ([]events.TriggerStat, error)

// Orders takes the order webhook (orders.Service).
type Orders interface {
	Upsert(ctx context.Context, webhookKey string, in orders.Input) error
}

// Fires records what a click or a message fires (fires.Service).
type Fires interface {
	Click(ctx context.Context, w *pgx.Batch, c platform.LinkClick) error
	Messages(ctx context.Context, workspaceID string, msgs []platform.DecodedMessage) error
}

// Objects applies bulk ad-object writes (adsync.Objects).
type Objects interface {
	Apply(ctx context.Context, c platform.Connection, in adsync.ObjectsInput, actor adsync.Actor) (adsync.ObjectsResult, error)
}

// Scripts serves a container's tag script (tag.Scripts).
type Scripts interface {
	Script(ctx context.Context, ref string) (tag.Script, error)
}
