package main

import (
	"context"
	"fmt"
	"slices"

	"mtk/engine"
	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// The dashboard run's tenants: -projects projects spread over a few enterprise workspaces (an
// agency's clients), found by name on a later run so that the generated data (written for their
// project and connection ids) stays valid.
const (
	dashWorkspaces      = 5
	dashWorkspacePrefix = "mtk dashboard bench "
)

// dashShape is a project's currency and zone, with its beta and gamma (or alpha) accounts in
// the other currencies, as enginetest.Demo makes them: every page converts money.
type dashShape struct {
	currency, zone string
	accounts       map[string]string
}

// dashShapes go to the projects in turn.
var dashShapes = []dashShape{
	{"BRL", "America/Sao_Paulo", map[string]string{platform.KindBeta: "USD", platform.KindGamma: "EUR"}},
	{"USD", "America/New_York", map[string]string{platform.KindBeta: "BRL", platform.KindGamma: "EUR"}},
	{"EUR", "Asia/Kolkata", map[string]string{platform.KindAlpha: "USD", platform.KindBeta: "BRL"}},
}

// dashProject is one project of the run. Its index in dashTenants.projects is its Zipf rank:
// project 0 is the most viewed.
type dashProject struct {
	workspace platform.Workspace
	project   platform.Project
	shape     dashShape
	// networks are the connections of the generated data: alpha, beta, gamma.
	networks []platform.Connection
	// checkout is a custom connection: its webhook key takes the project's orders.
	checkout platform.Connection
	// domain is its container's: events name it to reach the project.
	domain string
	// key is its workspace's key for this run (data:read and tracking:write).
	key string
	// ads are the ads that events and orders carry the UTM of (dashattr.go).
	ads []utmAd
}

// dashTenants are the run's projects and the keys made for the run (revoked at the end).
type dashTenants struct {
	projects []*dashProject
	keys     []platform.APIKey
}

// ensureDashTenants finds or creates the workspaces, projects, connections and containers, and
// makes one key per workspace for this run.
func ensureDashTenants(ctx context.Context, s *platform.Services, n int) (*dashTenants, error) {
	t := &dashTenants{}
	var spaces []platform.Workspace
	for w := range dashWorkspaces {
		name := fmt.Sprintf("%s%d", dashWorkspacePrefix, w+1)
		ws, err := s.Workspaces.WorkspaceByName(ctx, name)
		if e, ok := apperr.As(err); ok && e.Code == apperr.CodeResourceNotFound {
			ws, err = s.Workspaces.CreateWorkspace(ctx, name, platform.TierEnterprise)
		}
		if err != nil {
			return nil, err
		}
		key, err := s.Keys.CreateAPIKey(ctx, ws.ID, "dashboard benchmark", []string{auth.ScopeDataRead, auth.ScopeTrackingWrite}, nil)
		if err != nil {
			return nil, err
		}
		spaces = append(spaces, ws)
		t.keys = append(t.keys, key)
	}
	for i := range n {
		w := i % dashWorkspaces
		p, err := ensureDashProject(ctx, s, spaces[w], i)
		if err != nil {
			return nil, err
		}
		p.key = t.keys[w].Token
		t.projects = append(t.projects, p)
	}
	return t, nil
}

func ensureDashProject(ctx context.Context, s *platform.Services, ws platform.Workspace, i int) (*dashProject, error) {
	p := &dashProject{workspace: ws, shape: dashShapes[i%len(dashShapes)], domain: fmt.Sprintf("store%02d.dash.bench.example", i+1)}
	name := fmt.Sprintf("Store %02d", i+1)
	projects, err := s.Projects.ListProjects(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	if j := slices.IndexFunc(projects, func(p platform.Project) bool { return p.Name == name }); j >= 0 {
		p.project = projects[j]
	} else if p.project, err = s.Projects.CreateProject(ctx, platform.ProjectInput{
		WorkspaceID: ws.ID, Name: name, Currency: p.shape.currency, Timezone: p.shape.zone,
	}); err != nil {
		return nil, err
	}
	wanted := []platform.ConnectionInput{
		{Kind: platform.KindAlpha, Name: "Alpha", SourceID: fmt.Sprintf("act_91%08d1", i)},
		{Kind: platform.KindBeta, Name: "Beta", SourceID: fmt.Sprintf("92%08d2", i)},
		{Kind: platform.KindGamma, Name: "Gamma", SourceID: fmt.Sprintf("93%08d3", i)},
		{Kind: platform.KindCustom, Name: "Checkout"},
	}
	existing, err := s.Connections.ListConnections(ctx, p.project.ID)
	if err != nil {
		return nil, err
	}
	for _, in := range wanted {
		var c platform.Connection
		if j := slices.IndexFunc(existing, func(c platform.Connection) bool { return c.Name == in.Name }); j >= 0 {
			c = existing[j]
		} else {
			in.ProjectID = p.project.ID
			if c, err = s.Connections.CreateConnection(ctx, in); err != nil {
				return nil, err
			}
		}
		if in.Kind == platform.KindCustom {
			p.checkout = c
		} else {
			p.networks = append(p.networks, c)
		}
	}
	containers, err := s.Containers.ListContainers(ctx, p.project.ID)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(containers, func(c platform.Container) bool { return c.Domain == p.domain }) {
		if _, err := s.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: p.project.ID, Domain: p.domain}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// revoke revokes the run's keys.
func (t *dashTenants) revoke(ctx context.Context, s *platform.Keys) {
	for _, k := range t.keys {
		s.RevokeAPIKey(ctx, k.ID) //nolint:errcheck // a leftover key of a bench database
	}
}

// scope is what the engine knows of project p as the API reads it (platform.ProjectScope: every
// connection of the project, the synced one included), for compiling the floor's statements.
func scopeOf(ctx context.Context, s *platform.Projects, p *dashProject) (engine.Scope, error) {
	ps, err := s.ProjectScope(ctx, p.project.ID)
	if err != nil {
		return engine.Scope{}, err
	}
	return engine.Scope{ProjectID: ps.ID, Currency: ps.Currency, TimeZone: ps.Timezone,
		SubHour: platform.SubHourGranularities(p.workspace.Tier), ConnectionIDs: ps.ConnectionIDs}, nil
}
