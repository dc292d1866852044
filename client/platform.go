package client

import (
	"context"
	"time"
)

// User is who logged in.
type User struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Role  string `json:"role"`
}

// LoginResult is the answer of Login: a JWT valid 7 days, for WithJWT.
type LoginResult struct {
	Token string `json:"token"`
	User  User   `json:"user"`
}

// Login exchanges an e-mail and a password for a JWT (POST /v3/auth/login). It sends no
// credential.
func (c *Client) Login(ctx context.Context, email, password string, opts ...CallOption) (*LoginResult, error) {
	in := struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}{email, password}
	out := new(LoginResult)
	return done(out, c.call(ctx, request{method: "POST", path: "/v3/auth/login", access: anonymous, safe: true, in: in, out: out}, opts))
}

// Logout revokes the login token that c was made with (POST /v3/auth/logout): from then on it is
// refused (401 invalid_token). The user's other tokens keep working. It is not retried: a retry
// of a logout that took effect would be refused.
func (c *Client) Logout(ctx context.Context, opts ...CallOption) error {
	return c.call(ctx, request{method: "POST", path: "/v3/auth/logout"}, opts)
}

// Project is a brand: its money is in Currency and its days are those of Timezone.
type Project struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Logo        *string   `json:"logo"`
	WorkspaceID string    `json:"workspace_id"`
	Currency    string    `json:"currency"`
	Timezone    string    `json:"timezone"`
	CreatedAt   time.Time `json:"created_at"`
}

// ListProjects lists the projects of the key's workspace, or of every workspace of a JWT's user
// (of X-Workspace-Id when given) (GET /v3/projects).
func (c *Client) ListProjects(ctx context.Context, opts ...CallOption) ([]Project, error) {
	var out []Project
	if err := c.call(ctx, request{method: "GET", path: "/v3/projects", safe: true, out: &out}, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// The connection statuses.
const (
	ConnectionActive   = "active"
	ConnectionError    = "error"
	ConnectionPaused   = "paused"
	ConnectionDisabled = "disabled"
)

// Connection is a data source of a project: an ad account, or a custom checkout (Source
// "Personalizado", with its WebhookURL when the caller may write data: a key with data:write, an
// owner's or admin's JWT; nil otherwise).
type Connection struct {
	ID          string    `json:"id"`
	Source      string    `json:"source"`
	SourceID    *string   `json:"source_id"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	WorkspaceID string    `json:"workspace_id"`
	WebhookURL  *string   `json:"webhook_url"`
	ProjectID   string    `json:"project_id"`
	CreatedAt   time.Time `json:"created_at"`
}

// ListConnections lists a project's connections (GET /v3/projects/{id}/connections).
func (c *Client) ListConnections(ctx context.Context, projectID string, opts ...CallOption) ([]Connection, error) {
	var out []Connection
	if err := c.call(ctx, request{method: "GET", path: pathOf("/v3/projects/%s/connections", projectID), safe: true, out: &out}, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SyncRun is one synchronization of a connection. SyncType is full, incremental or backfill;
// Status is running, success or error.
type SyncRun struct {
	ID          string     `json:"id"`
	SyncType    string     `json:"sync_type"`
	Status      string     `json:"status"`
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
	RowsSynced  int64      `json:"rows_synced"`
	Error       *string    `json:"error"`
}

// LastSync is a connection's latest successful run.
type LastSync struct {
	CompletedAt time.Time `json:"completed_at"`
	RowsSynced  int64     `json:"rows_synced"`
	SyncType    string    `json:"sync_type"`
}

// Schedule is when the connection is synced next. Synced is false, and NextSyncEstimate nil, for
// a connection that is never synced: a custom one, a paused or a disabled one.
type Schedule struct {
	Tier                string     `json:"tier"`
	Synced              bool       `json:"synced"`
	SyncIntervalMinutes int        `json:"sync_interval_minutes"`
	NextSyncEstimate    *time.Time `json:"next_sync_estimate"`
	RemainingSeconds    int        `json:"remaining_seconds"`
}

// SyncStatus is a connection's synchronization state: the latest 20 runs, newest first.
type SyncStatus struct {
	ConnectionID string    `json:"connection_id"`
	Status       string    `json:"status"`
	LastSync     *LastSync `json:"last_sync"`
	History      []SyncRun `json:"history"`
	Schedule     Schedule  `json:"schedule"`
}

// SyncStatus reports a connection's runs and schedule (GET /v3/connections/{id}/sync). The id
// may also be the first network's ad account id (act_<digits> or <digits>).
func (c *Client) SyncStatus(ctx context.Context, connectionID string, opts ...CallOption) (*SyncStatus, error) {
	out := new(SyncStatus)
	return done(out, c.call(ctx, request{method: "GET", path: pathOf("/v3/connections/%s/sync", connectionID), safe: true, out: out}, opts))
}

// The object levels and statuses of UpdateObjects.
const (
	ObjectCampaign = "campaign"
	ObjectAdset    = "adset"
	ObjectAd       = "ad"

	StatusActive = "ACTIVE"
	StatusPaused = "PAUSED"
)

// ObjectsUpdate is a batch of changes to one level's objects: 1 to 1000 updates.
type ObjectsUpdate struct {
	Type    string         `json:"type"`
	Updates []ObjectUpdate `json:"updates"`
}

// ObjectUpdate changes one object: exactly one of Status (StatusActive, StatusPaused) and Budget
// (cents of the account's currency; campaigns and ad sets only). See SetStatus and SetBudget.
type ObjectUpdate struct {
	ID     string `json:"id"`
	Status string `json:"status,omitempty"`
	Budget *int64 `json:"budget,omitempty"`
}

// SetStatus is an update of an object's status.
func SetStatus(id, status string) ObjectUpdate { return ObjectUpdate{ID: id, Status: status} }

// SetBudget is an update of an object's budget, in cents.
func SetBudget(id string, cents int64) ObjectUpdate { return ObjectUpdate{ID: id, Budget: &cents} }

// ObjectResult is the outcome of one update; Error says why it failed.
type ObjectResult struct {
	ID    string `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// ObjectsResult is the answer of UpdateObjects: Success when every update applied.
type ObjectsResult struct {
	Success bool           `json:"success"`
	Results []ObjectResult `json:"results"`
	Summary struct {
		Updated int `json:"updated"`
		Failed  int `json:"failed"`
	} `json:"summary"`
}

// UpdateObjects pauses, activates or changes budgets of a connection's campaigns, ad sets or ads
// on the network (PUT /v3/connections/{id}/objects). The id may also be the first network's ad
// account id. A body that breaks a rule is refused whole (400, one Details line per problem);
// otherwise each update succeeds or fails on its own. It takes an Idempotency-Key.
func (c *Client) UpdateObjects(ctx context.Context, connectionID string, u *ObjectsUpdate, opts ...CallOption) (*ObjectsResult, error) {
	out := new(ObjectsResult)
	return done(out, c.call(ctx, request{method: "PUT", path: pathOf("/v3/connections/%s/objects", connectionID), keys: autoKey, in: u, out: out}, opts))
}
