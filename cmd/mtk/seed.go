package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/platform"
)

// The demo's fixed names and login. The password is public on purpose: the demo is for a local
// machine.
const (
	demoWorkspace = "mtk demo"
	demoEmail     = "demo@mtk.local"
	demoPassword  = "mtk-demo-password"
	demoProject   = "Demo Store"
)

// demoConnections are the demo project's connections: one per network and one custom.
var demoConnections = []platform.ConnectionInput{
	{Kind: platform.KindAlpha, Name: "Alpha Ads — Demo Store", SourceID: "act_100000000001"},
	{Kind: platform.KindBeta, Name: "Beta Ads — Demo Store", SourceID: "1234567890"},
	{Kind: platform.KindGamma, Name: "Gamma Ads — Demo Store", SourceID: "7000000000001"},
	{Kind: platform.KindCustom, Name: "Custom checkout"},
}

// demoKeys are the demo's API keys.
var demoKeys = []struct {
	Name   string
	Scopes []string
}{
	{"demo data", []string{auth.ScopeDataRead, auth.ScopeDataWrite}},
	{"demo tracking", []string{auth.ScopeTrackingRead, auth.ScopeTrackingWrite}},
}

type demoKey struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
	Token  string   `json:"token"`
}

type demoUser struct {
	ID       string `json:"id"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

// demoOutput is what `mtk seed demo --json` prints.
type demoOutput struct {
	Workspace   platform.Workspace    `json:"workspace"`
	User        demoUser              `json:"user"`
	Project     platform.Project      `json:"project"`
	Connections []platform.Connection `json:"connections"`
	Containers  []platform.Container  `json:"containers"`
	Keys        []demoKey             `json:"keys"`
	WebhookURL  string                `json:"webhook_url"`
}

func runSeed(ctx context.Context, args []string, out io.Writer) error {
	what, rest, err := subcommand(args, "demo")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("seed "+what, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the demo's ids, login and keys as one JSON object")
	asEnv := fs.Bool("env", false, "print shell exports: MTK_DEMO_KEY, MTK_DEMO_TRACKING_KEY, MTK_DEMO_PROJECT, MTK_DEMO_WEBHOOK")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	st, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	store := platform.NewStore(st.pg, clock.Real{})
	demo, err := seedDemo(ctx, store, cfg.BaseURL, filepath.Join(cfg.DataDir, "demo-keys.json"))
	if err != nil {
		return err
	}
	ents, err := seedDemoMetrics(ctx, st.ch, demo, time.Now())
	if err != nil {
		return err
	}
	if err := seedDemoTraffic(ctx, st, cfg, demo, ents, time.Now()); err != nil {
		return err
	}
	if demo.Containers, err = store.ListContainers(ctx, demo.Project.ID); err != nil { // with their events
		return err
	}
	if *asJSON {
		return json.NewEncoder(out).Encode(demo)
	}
	if *asEnv {
		_, err := fmt.Fprintf(out, "export MTK_DEMO_KEY=%s MTK_DEMO_TRACKING_KEY=%s MTK_DEMO_PROJECT=%s MTK_DEMO_WEBHOOK='%s'\n",
			demo.Keys[0].Token, demo.Keys[1].Token, demo.Project.ID, demo.WebhookURL)
		return err
	}
	fmt.Fprintf(out, "demo workspace %s, project %s\nlogin: %s / %s\n", demo.Workspace.ID, demo.Project.ID, demoEmail, demoPassword)
	for _, c := range demo.Containers {
		ref := c.Domain
		if c.TrackingCode != nil {
			ref = *c.TrackingCode
		}
		fmt.Fprintf(out, "container %s (version %s, %s, %d triggers): address it as %s\n", c.ID, c.Version, c.Domain, len(c.Triggers), ref)
	}
	for _, k := range demo.Keys {
		fmt.Fprintf(out, "key %q (%v): %s\n", k.Name, k.Scopes, k.Token)
	}
	fmt.Fprintf(out, "order webhook: %s\n\ntry it:\n  curl -s %s/v3/projects -H 'Authorization: Bearer %s'\n",
		demo.WebhookURL, cfg.BaseURL, demo.Keys[0].Token)
	fmt.Fprintf(out, "  curl -s %s/v3/query -H 'Authorization: Bearer %s' -d '{\"project_id\":\"%s\",\"fields\":[\"spend\",\"tx_revenue\",\"roas\"],\"metadata\":{\"level\":\"campaign\"}}'\n",
		cfg.BaseURL, demo.Keys[0].Token, demo.Project.ID)
	fmt.Fprintf(out, "\nor, for the README's examples:  eval \"$(bin/mtk seed demo --env)\"\n")
	return nil
}

// seedDemo creates what is missing of the demo and returns all of it. API key tokens are shown
// once by design, so the demo keeps its tokens in keysFile (under MTK_DATA) and makes new keys
// when the stored ones no longer verify.
func seedDemo(ctx context.Context, s *platform.Store, baseURL, keysFile string) (demoOutput, error) {
	var d demoOutput
	ws, err := s.WorkspaceByName(ctx, demoWorkspace)
	if isNotFound(err) {
		ws, err = s.CreateWorkspace(ctx, demoWorkspace, platform.TierGrowth)
	}
	if err != nil {
		return d, err
	}
	d.Workspace = ws

	user, err := s.UserByEmail(ctx, demoEmail)
	if isNotFound(err) {
		user, err = s.CreateUser(ctx, demoEmail, "Demo User", demoPassword, ws.ID, platform.RoleOwner)
	}
	if err != nil {
		return d, err
	}
	d.User = demoUser{ID: user.ID, Email: user.Email, Password: demoPassword}

	projects, err := s.ListProjects(ctx, ws.ID)
	if err != nil {
		return d, err
	}
	i := slices.IndexFunc(projects, func(p platform.Project) bool { return p.Name == demoProject })
	if i >= 0 {
		d.Project = projects[i]
	} else if d.Project, err = s.CreateProject(ctx, platform.ProjectInput{
		WorkspaceID: ws.ID, Name: demoProject, Description: "Demo brand with three ad networks and a checkout",
		Currency: "BRL", Timezone: "America/Sao_Paulo",
	}); err != nil {
		return d, err
	}

	if d.Connections, err = seedConnections(ctx, s, d.Project.ID, baseURL); err != nil {
		return d, err
	}
	for _, c := range d.Connections {
		if c.WebhookURL != nil {
			d.WebhookURL = *c.WebhookURL
		}
	}
	if d.Containers, err = seedContainers(ctx, s, d.Project.ID); err != nil {
		return d, err
	}
	d.Keys, err = seedKeys(ctx, s, ws.ID, keysFile)
	return d, err
}

func seedConnections(ctx context.Context, s *platform.Store, projectID, baseURL string) ([]platform.Connection, error) {
	existing, err := s.ListConnections(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []platform.Connection
	for _, in := range demoConnections {
		i := slices.IndexFunc(existing, func(c platform.Connection) bool { return c.Name == in.Name })
		var c platform.Connection
		if i >= 0 {
			c = existing[i]
		} else {
			in.ProjectID = projectID
			if c, err = s.CreateConnection(ctx, in); err != nil {
				return nil, err
			}
		}
		out = append(out, c.WithWebhookURL(baseURL))
	}
	return out, nil
}

func seedKeys(ctx context.Context, s *platform.Store, workspaceID, keysFile string) ([]demoKey, error) {
	var stored []demoKey
	if b, err := os.ReadFile(keysFile); err == nil {
		if json.Unmarshal(b, &stored) != nil {
			stored = nil
		}
	}
	var out []demoKey
	for _, want := range demoKeys {
		i := slices.IndexFunc(stored, func(k demoKey) bool { return k.Name == want.Name })
		if i >= 0 {
			if p, err := s.VerifyAPIKey(ctx, stored[i].Token); err == nil && p.WorkspaceID == workspaceID {
				out = append(out, stored[i])
				continue
			}
		}
		k, err := s.CreateAPIKey(ctx, workspaceID, want.Name, want.Scopes, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, demoKey{ID: k.ID, Name: k.Name, Scopes: k.Scopes, Token: k.Token})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(keysFile), 0o700); err != nil {
		return nil, err
	}
	return out, os.WriteFile(keysFile, b, 0o600)
}

func isNotFound(err error) bool {
	e, ok := apperr.As(err)
	return ok && e.Code == apperr.CodeResourceNotFound
}

// demoDays is how much metric history the demo has.
const demoDays = 90

// seedDemoMetrics fills the demo project with 90 days of generated ad metrics (entities, ad
// facts, exchange rates) ending yesterday, once: a project that has ad facts is left alone. The
// business facts (events, orders) come from seedDemoTraffic, through the real routes. It returns
// the demo's entities.
func seedDemoMetrics(ctx context.Context, ch driver.Conn, demo demoOutput, now time.Time) ([]engine.Entity, error) {
	loc, err := time.LoadLocation(demo.Project.Timezone)
	if err != nil {
		return nil, err
	}
	spec := enginetest.ProjectSpec{
		ID: demo.Project.ID, TimeZone: demo.Project.Timezone, Currency: demo.Project.Currency,
		Start: now.In(loc).AddDate(0, 0, -demoDays), Days: demoDays,
		AccountCurrencies: map[string]string{platform.KindBeta: "USD", platform.KindGamma: "EUR"},
		Connections:       map[string]string{}, Accounts: map[string]string{},
	}
	for _, c := range demo.Connections {
		if c.SourceID != nil {
			spec.Connections[c.Kind] = c.ID
			spec.Accounts[c.Kind] = *c.SourceID
		}
	}
	ds, err := enginetest.Generate(enginetest.Config{Seed: 1, Projects: []enginetest.ProjectSpec{spec}})
	if err != nil {
		return nil, err
	}
	var n uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM facts_raw WHERE project_id = ? AND impressions != 0", demo.Project.ID).Scan(&n); err != nil || n > 0 {
		return ds.Entities, err
	}
	adFacts := ds.Facts[:0]
	for _, f := range ds.Facts {
		if f.PageViews == 0 && f.Leads == 0 && f.InitiateCheckout == 0 && f.TxCountTotal == 0 && f.TxCount == 0 && f.TxCountRefunded == 0 {
			adFacts = append(adFacts, f)
		}
	}
	ds.Facts = adFacts
	return ds.Entities, ds.Write(ctx, ch)
}
