package platform

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
	"mtk/internal/ids"
	"mtk/internal/ttlcache"
)

// Projects keeps the projects, and remembers their query scopes for KeyCacheTTL.
type Projects struct {
	db
	scopes *ttlcache.Cache[string, ProjectScope]
}

// Project is a brand: the unit that metrics are queried for.
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

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// ProjectInput is what creating a project takes.
type ProjectInput struct {
	WorkspaceID string
	Name        string
	Description string
	Logo        string
	Currency    string
	Timezone    string
}

// Validate names every problem.
func (in ProjectInput) Validate() error {
	var problems []string
	if in.Name == "" {
		problems = append(problems, "name: required")
	}
	if !currencyCode.MatchString(in.Currency) {
		problems = append(problems, fmt.Sprintf("currency: %q is not an ISO 4217 code such as BRL or USD", in.Currency))
	}
	if _, err := time.LoadLocation(in.Timezone); err != nil || in.Timezone == "" || in.Timezone == "Local" {
		problems = append(problems, fmt.Sprintf("timezone: %q is not an IANA time zone such as America/Sao_Paulo", in.Timezone))
	}
	if len(problems) > 0 {
		return apperr.Invalid("Invalid project.", problems...)
	}
	return nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// CreateProject makes a project in a workspace.
func (s *Projects) CreateProject(ctx context.Context, in ProjectInput) (Project, error) {
	if err := in.Validate(); err != nil {
		return Project{}, err
	}
	p := Project{
		ID: ids.New(ids.Project), Name: in.Name, Description: optional(in.Description), Logo: optional(in.Logo),
		WorkspaceID: in.WorkspaceID, Currency: in.Currency, Timezone: in.Timezone, CreatedAt: s.clock.Now(),
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO projects (id, workspace_id, name, description, logo, currency, timezone, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		p.ID, p.WorkspaceID, p.Name, p.Description, p.Logo, p.Currency, p.Timezone, p.CreatedAt)
	if isForeignKeyViolation(err) {
		return Project{}, apperr.NotFound("Workspace not found.")
	}
	return p, err
}

const projectColumns = "id, name, description, logo, workspace_id, currency, timezone, created_at"

func scanProject(row pgx.CollectableRow) (Project, error) {
	var p Project
	err := row.Scan(p.dest()...)
	return p, err
}

// dest is where a row of projectColumns scans into.
func (p *Project) dest() []any {
	return []any{&p.ID, &p.Name, &p.Description, &p.Logo, &p.WorkspaceID, &p.Currency, &p.Timezone, &p.CreatedAt}
}

// ProjectScope is a project with the ids of its connections, oldest first: what a metric query
// needs of PostgreSQL, read in one round trip.
type ProjectScope struct {
	Project
	ConnectionIDs []string
	// PairsPending says the pair backfill has not finished for the project (PostgreSQL
	// pair_backfill): some of its stored rows are not in the pair rollups yet.
	PairsPending bool
}

// ProjectScope returns one project by id, whatever its workspace (callers check access), with
// its connections' ids. A scope read less than KeyCacheTTL ago is not read again; a connection
// created through the same Services shows at once.
func (s *Projects) ProjectScope(ctx context.Context, id string) (ProjectScope, error) {
	return s.scopes.Load(id, s.clock.Now(), func() (ProjectScope, error) { return s.readProjectScope(ctx, id) })
}

// forgetScope drops a project's scope from the cache, after a change to it or its connections.
func (s *Projects) forgetScope(id string) {
	s.scopes.Forget(func(_ string, sc ProjectScope) bool { return sc.ID == id })
}

func (s *Projects) readProjectScope(ctx context.Context, id string) (ProjectScope, error) {
	return queryOne(ctx, s.db, func(row pgx.CollectableRow) (ProjectScope, error) {
		var p ProjectScope
		err := row.Scan(&p.ID, &p.Name, &p.Description, &p.Logo, &p.WorkspaceID, &p.Currency, &p.Timezone, &p.CreatedAt,
			&p.ConnectionIDs, &p.PairsPending)
		return p, err
	}, apperr.NotFound("Project not found."),
		"SELECT "+projectColumns+`, ARRAY(SELECT c.id FROM connections c WHERE c.project_id = projects.id
			ORDER BY c.created_at, c.id), EXISTS (SELECT 1 FROM pair_backfill b WHERE b.project_id = projects.id)
		FROM projects WHERE id = $1`, id)
}

// ListProjects lists the projects of the given workspaces, oldest first.
func (s *Projects) ListProjects(ctx context.Context, workspaceIDs ...string) ([]Project, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+projectColumns+" FROM projects WHERE workspace_id = ANY($1) ORDER BY created_at, id", workspaceIDs)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanProject)
}

// Project returns one project by id, whatever its workspace: callers check access.
func (s *Projects) Project(ctx context.Context, id string) (Project, error) {
	return queryOne(ctx, s.db, scanProject, apperr.NotFound("Project not found."),
		"SELECT "+projectColumns+" FROM projects WHERE id = $1", id)
}
