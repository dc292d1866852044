package client_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/client"
	"mtk/internal/adsim"
	"mtk/internal/auth"
	"mtk/platform"
)

func TestLoginAndJWT(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	anon := client.New(w.srv.URL)

	res, err := anon.Login(ctx, w.tn.User.Email, w.tn.Password)
	if err != nil {
		t.Fatal(err)
	}
	if res.Token == "" || res.User.ID != w.tn.User.ID || res.User.Email != w.tn.User.Email || res.User.Role == "" {
		t.Fatalf("login answer %+v", res)
	}
	_, err = anon.Login(ctx, w.tn.User.Email, "wrong")
	wantAPIError(t, err, 401, client.ErrorTypeAuthentication, client.CodeInvalidCredentials)
	if !client.IsAuthentication(err) {
		t.Fatal("IsAuthentication is false for a 401")
	}

	// Without X-Workspace-Id a JWT lists across the user's workspaces, but data routes need it.
	user := client.New(w.srv.URL, client.WithJWT(res.Token, ""))
	if ps, err := user.ListProjects(ctx); err != nil || len(ps) != 1 || ps[0].ID != w.tn.Project.ID {
		t.Fatalf("projects %+v, %v", ps, err)
	}
	_, err = user.Fields(ctx, "")
	e := wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeMissingParameter)
	if !slices.Equal(e.Params(), []string{"X-Workspace-Id"}) {
		t.Fatalf("params %q of %q", e.Params(), e.Details)
	}
	member := client.New(w.srv.URL, client.WithJWT(res.Token, w.tn.Workspace.ID))
	if f, err := member.Fields(ctx, ""); err != nil || len(f.Metrics) == 0 {
		t.Fatalf("fields with a workspace: %+v, %v", f, err)
	}

	// Logging out revokes the token, whichever client holds it, and no other.
	if err := member.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = member.Fields(ctx, "")
	wantAPIError(t, err, 401, client.ErrorTypeAuthentication, client.CodeInvalidToken)
	if _, err := user.ListProjects(ctx); !client.IsAuthentication(err) {
		t.Fatalf("the same token in another client: %v", err)
	}
	again, err := anon.Login(ctx, w.tn.User.Email, w.tn.Password)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(w.srv.URL, client.WithJWT(again.Token, "")).ListProjects(ctx); err != nil {
		t.Fatalf("a new token after logging another out: %v", err)
	}
}

func TestListProjectsAndConnections(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	c, _ := w.client(w.readKey)

	ps, err := c.ListProjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].ID != w.tn.Project.ID || ps[0].WorkspaceID != w.tn.Workspace.ID || ps[0].Currency != "BRL" ||
		ps[0].Timezone != "America/Sao_Paulo" || ps[0].CreatedAt.IsZero() {
		t.Fatalf("projects %+v", ps)
	}
	conns, err := c.ListConnections(ctx, w.tn.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]client.Connection{}
	for _, cn := range conns {
		byID[cn.ID] = cn
	}
	alpha, custom := byID[w.tn.Alpha.ID], byID[w.tn.Custom.ID]
	if len(conns) != 2 || alpha.Source != platform.KindAlpha || alpha.SourceID == nil || *alpha.SourceID != "act_1" ||
		alpha.WebhookURL != nil || alpha.Status != client.ConnectionActive {
		t.Fatalf("alpha connection %+v of %+v", alpha, conns)
	}
	if custom.Source != "Personalizado" || custom.WebhookURL != nil {
		t.Fatalf("custom connection %+v: a data:read key sees no webhook URL", custom)
	}
	// A key that may write data sees the webhook URL, whose key writes orders.
	writer, _ := w.client(w.srv.Key(t, w.tn.Workspace.ID, auth.ScopeDataRead, auth.ScopeDataWrite))
	if conns, err = writer.ListConnections(ctx, w.tn.Project.ID); err != nil {
		t.Fatal(err)
	}
	for _, cn := range conns {
		if cn.ID == w.tn.Custom.ID && (cn.WebhookURL == nil || *cn.WebhookURL != w.srv.URL+"/v2/tracking/generic?k="+w.tn.Custom.WebhookKey) {
			t.Fatalf("custom connection %+v", cn)
		}
	}

	// These two routes answer 401 and 403 with {error, message}.
	_, err = client.New(w.srv.URL, client.WithAPIKey("mtk_live_unknown")).ListProjects(ctx)
	e := wantAPIError(t, err, 401, client.ErrorTypeAuthentication, "unauthorized")
	if len(e.Details) != 0 {
		t.Fatalf("legacy error with details: %+v", e)
	}
	_, err = c.ListConnections(ctx, w.otherWorkspaceProject(t).ID)
	wantAPIError(t, err, 403, client.ErrorTypeAuthorization, "forbidden")
	if !client.IsPermission(err) {
		t.Fatal("IsPermission is false for a 403")
	}
}

func TestSyncStatus(t *testing.T) {
	w := newWorld(t, platform.TierGrowth)
	ctx := context.Background()
	c, _ := w.client(w.readKey)

	for _, ref := range []string{w.tn.Alpha.ID, "act_1"} {
		st, err := c.SyncStatus(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if st.ConnectionID != w.tn.Alpha.ID || st.LastSync != nil || len(st.History) != 0 || st.Schedule.Tier != platform.TierGrowth ||
			st.Schedule.SyncIntervalMinutes != 10 || st.Schedule.NextSyncEstimate == nil {
			t.Fatalf("sync status by %s: %+v", ref, st)
		}
	}
	_, err := c.SyncStatus(ctx, "con_unknown")
	wantAPIError(t, err, 404, client.ErrorTypeNotFound, client.CodeResourceNotFound)
	if !client.IsNotFound(err) {
		t.Fatal("IsNotFound is false for a 404")
	}
}

func TestUpdateObjects(t *testing.T) {
	w := newWorld(t, platform.TierGrowth)
	ctx := context.Background()
	sim, err := adsim.New(adsim.Config{Seed: 5, Clock: w.clk, Days: 3, AccountsPerNetwork: 1})
	if err != nil {
		t.Fatal(err)
	}
	simSrv := httptest.NewServer(sim.Handler())
	t.Cleanup(simSrv.Close)
	var acct adsim.AccountInfo
	for _, a := range sim.Accounts() {
		if a.Network == adsim.Alpha {
			acct = a
		}
	}
	conn, err := w.srv.Store.CreateConnection(ctx, platform.ConnectionInput{ProjectID: w.tn.Project.ID, Kind: platform.KindAlpha,
		Name: acct.Name, SourceID: acct.ID, APIBaseURL: networks.APIRoot(platform.KindAlpha, simSrv.URL), AccessToken: acct.AccessToken})
	if err != nil {
		t.Fatal(err)
	}
	syncer := &adsync.Syncer{Platform: w.srv.Store, Store: adsync.NewStore(w.srv.Postgres), ClickHouse: w.srv.ClickHouse,
		Connectors: networks.Factory{}.Connector, Clock: w.clk}
	if _, err := syncer.Run(ctx, conn, adsync.Options{}); err != nil {
		t.Fatal(err)
	}
	objs, _ := sim.Objects(adsim.Alpha, acct.ID)
	var campaign, adset adsim.ObjectInfo
	for _, o := range objs {
		switch {
		case o.Level == adsim.LevelCampaign && o.Status == adsim.Active && campaign.ID == "":
			campaign = o
		case o.Level == adsim.LevelAdSet && o.BudgetKind != "" && adset.ID == "":
			adset = o
		}
	}
	c, _ := w.client(w.writeKey)

	res, err := c.UpdateObjects(ctx, conn.ID, &client.ObjectsUpdate{Type: client.ObjectCampaign,
		Updates: []client.ObjectUpdate{client.SetStatus(campaign.ID, client.StatusPaused)}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || res.Summary.Updated != 1 || res.Summary.Failed != 0 || len(res.Results) != 1 || !res.Results[0].OK ||
		res.Results[0].ID != campaign.ID {
		t.Fatalf("pause answer %+v", res)
	}
	res, err = c.UpdateObjects(ctx, acct.ID, &client.ObjectsUpdate{Type: client.ObjectAdset,
		Updates: []client.ObjectUpdate{client.SetBudget(adset.ID, 12345), client.SetStatus("unknown-adset", client.StatusActive)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || res.Summary.Updated != 1 || res.Summary.Failed != 1 || res.Results[1].OK || res.Results[1].Error == "" {
		t.Fatalf("budget answer %+v", res)
	}
	objs, _ = sim.Objects(adsim.Alpha, acct.ID)
	for _, o := range objs {
		if (o.ID == campaign.ID && o.Status != adsim.Paused) || (o.ID == adset.ID && o.Budget != 12345) {
			t.Fatalf("the network did not follow: %+v", o)
		}
	}

	// A body that breaks a rule is refused whole, naming each bad item.
	_, err = c.UpdateObjects(ctx, conn.ID, &client.ObjectsUpdate{Type: client.ObjectAd,
		Updates: []client.ObjectUpdate{{ID: "1"}, client.SetBudget("2", 100)}})
	e := wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
	if !slices.Equal(e.Params(), []string{"updates[0]", "updates[1].budget"}) || !client.IsValidation(err) {
		t.Fatalf("params %q of %q", e.Params(), e.Details)
	}
	reader, _ := w.client(w.readKey)
	_, err = reader.UpdateObjects(ctx, conn.ID, &client.ObjectsUpdate{Type: client.ObjectAd,
		Updates: []client.ObjectUpdate{client.SetStatus("1", client.StatusPaused)}})
	wantAPIError(t, err, 403, client.ErrorTypeAuthorization, client.CodeInsufficientScope)
}
