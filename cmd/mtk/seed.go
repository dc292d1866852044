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

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/config"
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

// demoConnections are the demo project's connections: one per network (their accounts come
// from the simulator, see seedsync.go) and one custom.
var demoConnections = []platform.ConnectionInput{
	{Kind: platform.KindAlpha, Name: "Alpha Ads — Demo Store"},
	{Kind: platform.KindBeta, Name: "Beta Ads — Demo Store"},
	{Kind: platform.KindGamma, Name: "Gamma Ads — Demo Store"},
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
	return withStores(ctx, func(cfg config.Config, st stores) error {
		store := platform.New(st.pg, clock.Real{})
		accounts, err := adsimAccounts(ctx, cfg.AdsimURL)
		if err != nil {
			return err
		}
		demo, err := seedDemo(ctx, store, cfg.BaseURL, filepath.Join(cfg.DataDir, "demo-keys.json"), accounts)
		if err != nil {
			return err
		}
		if err := backfillDemo(ctx, newSyncer(cfg, st, clock.Real{}), demo, os.Stderr); err != nil {
			return err
		}
		if err := seedDemoRates(ctx, st, demo, time.Now()); err != nil {
			return err
		}
		if err := seedDemoTraffic(ctx, st, cfg, demo, time.Now()); err != nil {
			return err
		}
		if demo.Containers, err = store.Containers.ListContainers(ctx, demo.Project.ID); err != nil { // with their events
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
		fmt.Fprintf(out, "\nor, for the examples of README.md and docs/:  eval \"$(bin/mtk seed demo --env)\"\n")
		return nil
	})
}

// seedDemo creates what is missing of the demo and returns all of it. API key tokens are shown
// once by design, so the demo keeps its tokens in keysFile (under MTK_DATA) and makes new keys
// when the stored ones no longer verify.
func seedDemo(ctx context.Context, s *platform.Services, baseURL, keysFile string, accounts []adsimAccount) (demoOutput, error) {
	var d demoOutput
	ws, err := s.Workspaces.WorkspaceByName(ctx, demoWorkspace)
	if isNotFound(err) {
		ws, err = s.Workspaces.CreateWorkspace(ctx, demoWorkspace, platform.TierGrowth)
	}
	if err != nil {
		return d, err
	}
	d.Workspace = ws

	user, err := s.Users.UserByEmail(ctx, demoEmail)
	if isNotFound(err) {
		user, err = s.Users.CreateUser(ctx, demoEmail, "Demo User", demoPassword, ws.ID, platform.RoleOwner)
	}
	if err != nil {
		return d, err
	}
	d.User = demoUser{ID: user.ID, Email: user.Email, Password: demoPassword}

	projects, err := s.Projects.ListProjects(ctx, ws.ID)
	if err != nil {
		return d, err
	}
	i := slices.IndexFunc(projects, func(p platform.Project) bool { return p.Name == demoProject })
	if i >= 0 {
		d.Project = projects[i]
	} else if d.Project, err = s.Projects.CreateProject(ctx, platform.ProjectInput{
		WorkspaceID: ws.ID, Name: demoProject, Description: "Demo brand with three ad networks and a checkout",
		Currency: "BRL", Timezone: "America/Sao_Paulo",
	}); err != nil {
		return d, err
	}

	if d.Connections, err = seedConnections(ctx, s.Connections, d.Project, baseURL, accounts); err != nil {
		return d, err
	}
	for _, c := range d.Connections {
		if c.WebhookURL != nil {
			d.WebhookURL = *c.WebhookURL
		}
	}
	alpha, err := pickAccount(accounts, platform.KindAlpha, d.Project)
	if err != nil {
		return d, err
	}
	if d.Containers, err = seedContainers(ctx, s.Containers, d.Project.ID, alpha.PixelID); err != nil {
		return d, err
	}
	d.Keys, err = seedKeys(ctx, s.Keys, ws.ID, keysFile)
	return d, err
}

func seedConnections(ctx context.Context, s *platform.Connections, p platform.Project, baseURL string, accounts []adsimAccount) ([]platform.Connection, error) {
	existing, err := s.ListConnections(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	var out []platform.Connection
	for _, in := range demoConnections {
		var acct adsimAccount
		if in.Kind != platform.KindCustom {
			if acct, err = pickAccount(accounts, in.Kind, p); err != nil {
				return nil, err
			}
			in.SourceID, in.AccessToken, in.APIBaseURL = acct.ID, acct.AccessToken, acct.APIRoot
		}
		i := slices.IndexFunc(existing, func(c platform.Connection) bool { return c.Name == in.Name })
		var c platform.Connection
		switch {
		case i < 0:
			in.ProjectID = p.ID
			if c, err = s.CreateConnection(ctx, in); err != nil {
				return nil, err
			}
		case in.Kind != platform.KindCustom && (existing[i].SourceID == nil || *existing[i].SourceID != in.SourceID ||
			existing[i].APIBaseURL != in.APIBaseURL || existing[i].AccessToken != in.AccessToken):
			// The simulator was started with another seed or address: follow it.
			if err := s.SetConnectionAPI(ctx, existing[i].ID, in.SourceID, in.APIBaseURL, in.AccessToken); err != nil {
				return nil, err
			}
			if c, err = s.Connection(ctx, existing[i].ID); err != nil {
				return nil, err
			}
		default:
			c = existing[i]
		}
		out = append(out, c.WithWebhookURL(baseURL))
	}
	return out, nil
}

func seedKeys(ctx context.Context, s *platform.Keys, workspaceID, keysFile string) ([]demoKey, error) {
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
