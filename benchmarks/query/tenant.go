package main

import (
	"context"
	"slices"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// The benchmark's tenant, found by name on a later run so that the ClickHouse data (written for
// its project and connection ids) stays valid.
const (
	benchWorkspace = "mtk bench"
	benchProject   = "Bench Store"
	benchCurrency  = "BRL"
	benchTimeZone  = "America/Sao_Paulo"
)

// benchConnections are one connection per ad network.
var benchConnections = []platform.ConnectionInput{
	{Kind: platform.KindAlpha, Name: "Alpha bench", SourceID: "act_900000000001"},
	{Kind: platform.KindBeta, Name: "Beta bench", SourceID: "900000000002"},
	{Kind: platform.KindGamma, Name: "Gamma bench", SourceID: "900000000003"},
}

// tenant is the benchmark's workspace (enterprise tier, so sub-hourly granularities answer as
// asked), its project and connections, and an API key made for this run.
type tenant struct {
	workspace   platform.Workspace
	project     platform.Project
	connections []platform.Connection
	key         platform.APIKey
}

// ensureTenant finds or creates the tenant, and makes a data:read key for this run.
func ensureTenant(ctx context.Context, s *platform.Services) (tenant, error) {
	var t tenant
	ws, err := s.Workspaces.WorkspaceByName(ctx, benchWorkspace)
	if e, ok := apperr.As(err); ok && e.Code == apperr.CodeResourceNotFound {
		ws, err = s.Workspaces.CreateWorkspace(ctx, benchWorkspace, platform.TierEnterprise)
	}
	if err != nil {
		return t, err
	}
	t.workspace = ws
	projects, err := s.Projects.ListProjects(ctx, ws.ID)
	if err != nil {
		return t, err
	}
	if i := slices.IndexFunc(projects, func(p platform.Project) bool { return p.Name == benchProject }); i >= 0 {
		t.project = projects[i]
	} else if t.project, err = s.Projects.CreateProject(ctx, platform.ProjectInput{
		WorkspaceID: ws.ID, Name: benchProject, Currency: benchCurrency, Timezone: benchTimeZone,
	}); err != nil {
		return t, err
	}
	existing, err := s.Connections.ListConnections(ctx, t.project.ID)
	if err != nil {
		return t, err
	}
	for _, in := range benchConnections {
		if i := slices.IndexFunc(existing, func(c platform.Connection) bool { return c.Name == in.Name }); i >= 0 {
			t.connections = append(t.connections, existing[i])
			continue
		}
		in.ProjectID = t.project.ID
		c, err := s.Connections.CreateConnection(ctx, in)
		if err != nil {
			return t, err
		}
		t.connections = append(t.connections, c)
	}
	t.key, err = s.Keys.CreateAPIKey(ctx, ws.ID, "query benchmark", []string{auth.ScopeDataRead}, nil)
	return t, err
}
