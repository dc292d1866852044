package client_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/client"
	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/platform"
)

func TestQueryRequestBody(t *testing.T) {
	for _, c := range []struct {
		name string
		q    client.QueryRequest
		want string
	}{
		{"bare", client.QueryRequest{ProjectID: "prj_1", Fields: []string{"spend"}}, `{"project_id":"prj_1","fields":["spend"]}`},
		{"everything", client.QueryRequest{
			ProjectID: "prj_1", Fields: []string{"spend", "ctr"}, Source: client.SourceAlpha, ConnectionIDs: []string{"con_1"},
			Start: "2026-03-01", End: "2026-03-07", Granularity: client.GranularityDay, Level: client.LevelCampaign,
			Filters: []client.Filter{{Member: "campaign_name", Operator: "contains", Values: []string{"<b>"}}, {Member: "ad_id", Operator: "set"}},
			Order:   []client.OrderBy{{Field: "spend", Desc: true}, {Field: "date"}}, Limit: 10, Offset: 20, Currency: "USD",
		}, `{"project_id":"prj_1","fields":["spend","ctr"],"source":"alpha_ads","connection_ids":["con_1"],` +
			`"time":{"start":"2026-03-01","end":"2026-03-07","granularity":"day"},` +
			`"filters":[{"member":"campaign_name","operator":"contains","values":["\u003cb\u003e"]},{"member":"ad_id","operator":"set"}],` +
			`"order":{"spend":"desc","date":"asc"},"limit":10,"offset":20,"metadata":{"level":"campaign","convert_to_currency":"USD"}}`},
		{"named range compared, counted", client.QueryRequest{ProjectID: "prj_1", Fields: []string{"spend"}, Range: client.RangeLast7Days,
			Compare: client.ComparePreviousYear, Total: true},
			`{"project_id":"prj_1","fields":["spend"],"time":{"range":"last_7_days","compare":"previous_year"},"total":true}`},
		{"compared with a period", client.QueryRequest{ProjectID: "prj_1", Fields: []string{"spend"}, Start: "2026-03-01", End: "2026-03-07",
			CompareStart: "2025-12-01", CompareEnd: "2025-12-07"},
			`{"project_id":"prj_1","fields":["spend"],"time":{"start":"2026-03-01","end":"2026-03-07","compare":{"start":"2025-12-01","end":"2025-12-07"}}}`},
		{"traffic view, net, attributed", client.QueryRequest{ProjectID: "prj_1", Fields: []string{"tx_revenue"},
			Dimensions: []string{"utm_source", "device"}, Revenue: client.RevenueNet,
			Attribution: &client.Attribution{Model: client.ModelLinear, WindowDays: 7, Date: client.DateClick, Touches: client.TouchesAll}},
			`{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"dimensions":["utm_source","device"],"revenue":"net",` +
				`"attribution":{"model":"linear","window_days":7,"date":"click","touches":"all"}}}`},
		{"empty dimensions are the traffic total", client.QueryRequest{ProjectID: "prj_1", Fields: []string{"tx_revenue"}, Dimensions: []string{}},
			`{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"dimensions":[]}}`},
		{"defaults of an attribution", client.QueryRequest{ProjectID: "prj_1", Fields: []string{"tx_revenue"}, Attribution: &client.Attribution{}},
			`{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"attribution":{}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.Marshal(c.q)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestQueryMatchesEngine asks the server through the client and compares every value of every
// row with what the engine answers for the same query, money to the cent.
func TestQueryMatchesEngine(t *testing.T) {
	w := newWorld(t, platform.TierGrowth)
	ctx := context.Background()
	loc, _ := time.LoadLocation(w.tn.Project.Timezone)
	ds, err := enginetest.Generate(enginetest.Config{Seed: 7, Projects: []enginetest.ProjectSpec{{
		ID: w.tn.Project.ID, TimeZone: w.tn.Project.Timezone, Currency: w.tn.Project.Currency,
		Start: w.clk.Now().In(loc).AddDate(0, 0, -10), Days: 10, AccountCurrencies: map[string]string{"beta_ads": "USD"},
		Connections: map[string]string{"alpha_ads": w.tn.Alpha.ID},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(ctx, w.srv.ClickHouse); err != nil {
		t.Fatal(err)
	}
	c, _ := w.client(w.readKey)
	q := client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"spend", "impressions", "ctr", "roas"},
		Start: "2026-03-01", End: "2026-03-08", Granularity: client.GranularityDay, Level: client.LevelCampaign,
		Order: []client.OrderBy{{Field: "date"}, {Field: "spend", Desc: true}}, Limit: 40}
	got, err := c.Query(ctx, &q)
	if err != nil {
		t.Fatal(err)
	}

	var in engine.QueryInput
	body, _ := json.Marshal(q)
	if err := json.Unmarshal(body, &in); err != nil {
		t.Fatal(err)
	}
	conns, _ := w.srv.Store.Connections.ListConnections(ctx, w.tn.Project.ID)
	scope := engine.Scope{ProjectID: w.tn.Project.ID, Currency: "BRL", TimeZone: w.tn.Project.Timezone, SubHour: true}
	for _, cn := range conns {
		scope.ConnectionIDs = append(scope.ConnectionIDs, cn.ID)
	}
	want, err := engine.New(w.srv.ClickHouse, engine.Options{Clock: w.clk}).Query(ctx, scope, in)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Success || got.Currency != want.Currency || got.HasMore != want.HasMore || !slices.Equal(got.Warnings, want.Warnings) ||
		len(got.Data) != len(want.Data) || len(got.Data) == 0 {
		t.Fatalf("answer: %d rows, currency %s, has_more %v, warnings %q; the engine's: %d rows, %s, %v, %q", len(got.Data),
			got.Currency, got.HasMore, got.Warnings, len(want.Data), want.Currency, want.HasMore, want.Warnings)
	}
	var spent decimal.Decimal
	for i, wr := range want.Data {
		row := got.Data[i]
		if len(row) != len(wr.Keys) {
			t.Fatalf("row %d has %d members, want %v", i, len(row), wr.Keys)
		}
		for j, k := range wr.Keys {
			wantJSON, _ := json.Marshal(wr.Values[j])
			if string(row[k].Raw()) != string(wantJSON) {
				t.Fatalf("row %d %s = %s, want %s", i, k, row[k].Raw(), wantJSON)
			}
		}
		spend, err := row["spend"].Decimal()
		if err != nil {
			t.Fatal(err)
		}
		money, _ := wr.Get("spend")
		if !spend.Equal(money.(engine.Money).Round(2)) {
			t.Fatalf("row %d spend %s, want %s", i, spend, money)
		}
		spent = spent.Add(spend)
		if n, err := row["impressions"].Int(); err != nil || n < 0 {
			t.Fatalf("row %d impressions %s: %v", i, row["impressions"].Raw(), err)
		}
		if row["date"].String() == "" || row["campaign_name"].String() == "" {
			t.Fatalf("row %d without date or campaign name: %v", i, row)
		}
	}
	if !spent.IsPositive() {
		t.Fatal("the generated data spent nothing; the comparison proves little")
	}

	// The named range, the comparison and the count come back typed; explain answers the plan.
	q = client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"spend"}, Range: client.RangeLast7Days,
		Compare: client.ComparePreviousPeriod, Level: client.LevelCampaign, Limit: 2, Total: true}
	got, err = c.Query(ctx, &q)
	if err != nil {
		t.Fatal(err)
	}
	if got.Time == nil || got.CompareTime == nil || got.TotalRows == nil || *got.TotalRows < int64(len(got.Data)) ||
		len(got.Data) == 0 || got.Data[0].Compare()["spend"].IsNull() {
		t.Fatalf("time %v, compare_time %v, total_rows %v, rows %v", got.Time, got.CompareTime, got.TotalRows, got.Data)
	}
	if _, ok := got.Data[0].Change()["spend"]; !ok {
		t.Fatalf("no change of spend: %v", got.Data[0])
	}
	ex, err := c.Explain(ctx, &q)
	if err != nil || len(ex.Plan) == 0 || len(ex.SQL) == 0 || ex.Cache == "" {
		t.Fatalf("explain %+v: %v", ex, err)
	}
	for _, p := range ex.Plan {
		if !p.Start.Before(p.End) || p.Table == "" {
			t.Fatalf("plan part %+v", p)
		}
	}
}

func TestQueryErrors(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	c, _ := w.client(w.readKey)

	_, err := c.Query(ctx, &client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"spend", "foo"}, Limit: 60000})
	e := wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
	if !slices.Equal(e.Params(), []string{"fields[1]", "limit"}) {
		t.Fatalf("params %q of %q", e.Params(), e.Details)
	}
	_, err = c.Query(ctx, &client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"spend"}, Source: "delta_ads"})
	wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidSource)
	_, err = c.Query(ctx, &client.QueryRequest{ProjectID: w.otherWorkspaceProject(t).ID, Fields: []string{"spend"}})
	wantAPIError(t, err, 403, client.ErrorTypeAuthorization, client.CodeAccessDenied)
}

func TestFields(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	c, _ := w.client(w.readKey)

	all, err := c.Fields(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	beta, err := c.Fields(ctx, client.SourceBeta)
	if err != nil {
		t.Fatal(err)
	}
	has := func(ms []client.Metric, name string) bool {
		return slices.ContainsFunc(ms, func(m client.Metric) bool { return m.Name == name })
	}
	if !has(all.Metrics, "reach") || has(beta.Metrics, "reach") || !has(beta.Metrics, "spend") || len(all.Dimensions) == 0 {
		t.Fatalf("fields: all %d metrics (reach %v), beta %d (reach %v)", len(all.Metrics), has(all.Metrics, "reach"),
			len(beta.Metrics), has(beta.Metrics, "reach"))
	}
	_, err = c.Fields(ctx, "delta_ads")
	wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidSource)
	_, err = client.New(w.srv.URL, client.WithAPIKey(w.trackKey)).Fields(ctx, "")
	wantAPIError(t, err, 403, client.ErrorTypeAuthorization, client.CodeInsufficientScope)
}

// TestWithHeaderNoCache: a query sent twice is a hit the second time, unless it carries
// Cache-Control: no-cache (WithHeader), which the server answers afresh each time.
func TestWithHeaderNoCache(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	c, _ := w.client(w.readKey)
	ctx := context.Background()
	q := &client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"spend"}, Start: "2026-03-01", End: "2026-03-07"}
	cache := func(opts ...client.CallOption) string {
		t.Helper()
		var r client.Response
		if _, err := c.Query(ctx, q, append(opts, client.WithResponse(&r))...); err != nil {
			t.Fatal(err)
		}
		return r.Header.Get("Server-Timing")
	}
	for i, want := range []string{"cache;desc=miss", "cache;desc=hit"} {
		if got := cache(); !strings.Contains(got, want) {
			t.Errorf("query %d: Server-Timing %q, want %s", i+1, got, want)
		}
	}
	for i := range 2 {
		if got := cache(client.WithHeader("Cache-Control", "no-cache")); !strings.Contains(got, "cache;desc=miss") {
			t.Errorf("no-cache query %d: Server-Timing %q, want a miss", i+1, got)
		}
	}
}
