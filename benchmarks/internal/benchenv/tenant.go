// Package benchenv makes what the write-path benchmarks run on: fresh databases of their own on
// the servers of MTK_POSTGRES_URL and MTK_CLICKHOUSE_URL, and a tenant whose events and orders
// are attributed to a synced ad.
package benchenv

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/adsync"
	"mtk/internal/clock"
	"mtk/platform"
)

// Tenant is an enterprise workspace's project with a container on Domain, an alpha connection
// (account AlphaAccount) whose synced ad 902 (ad set 901, campaign 900) the events' UTM name, a
// custom connection whose webhook key is Webhook, and an API key.
type Tenant struct {
	Workspace platform.Workspace
	Project   platform.Project
	Alpha     platform.Connection
	Key       string
	Webhook   string
}

// The tenant's fixed names.
const (
	Domain       = "bench.example"
	AlphaAccount = "act_1"
)

// NewTenant makes the tenant in pg, its key with scopes.
func NewTenant(ctx context.Context, pg *pgxpool.Pool, clk clock.Clock, scopes ...string) (Tenant, error) {
	var t Tenant
	store := platform.New(pg, clk)
	var err error
	if t.Workspace, err = store.Workspaces.CreateWorkspace(ctx, "bench", platform.TierEnterprise); err != nil {
		return t, err
	}
	if t.Project, err = store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: t.Workspace.ID, Name: "Bench",
		Currency: "BRL", Timezone: "America/Sao_Paulo"}); err != nil {
		return t, err
	}
	if t.Alpha, err = store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: t.Project.ID, Kind: platform.KindAlpha,
		Name: "Alpha", SourceID: AlphaAccount}); err != nil {
		return t, err
	}
	custom, err := store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: t.Project.ID, Kind: platform.KindCustom, Name: "Checkout"})
	if err != nil {
		return t, err
	}
	t.Webhook = custom.WebhookKey
	if _, err := store.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: t.Project.ID, Domain: Domain}); err != nil {
		return t, err
	}
	key, err := store.Keys.CreateAPIKey(ctx, t.Workspace.ID, "bench", scopes, nil)
	if err != nil {
		return t, err
	}
	t.Key = key.Token
	// The ad that events and orders are attributed to, as a sync stores it.
	return t, adsync.NewStore(pg).SaveObjects(ctx, t.Alpha.ID, []adsync.Object{
		{Level: "campaign", ID: "900", Name: "Bench", ParentID: AlphaAccount, CampaignID: "900"},
		{Level: "adset", ID: "901", Name: "Set", ParentID: "900", CampaignID: "900"},
		{Level: "ad", ID: "902", Name: "Ad", ParentID: "901", CampaignID: "900"},
	}, clk.Now())
}

// UTMQuery is a page URL's query naming the synced ad.
const UTMQuery = "utm_source=alpha&utm_campaign=Bench%7C900&utm_medium=Set%7C901&utm_content=Ad%7C902"
