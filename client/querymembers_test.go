package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"mtk/client"
	"mtk/engine"
	"mtk/facts"
	"mtk/platform"
)

// TestQueryMembersTyped sends the members of a query body that select the view, the revenue basis
// and the attribution through the typed client to the real server, and reads every member of
// the answers of query, explain and fields. Each answer is also decoded strictly (a member the
// client's types lack fails), so the client holds everything the server says.
func TestQueryMembersTyped(t *testing.T) {
	w := newWorld(t, platform.TierGrowth)
	ctx := context.Background()
	hook := client.New(w.srv.URL)
	for _, o := range []struct {
		id, source string
		value      int64
	}{{"order-1", "newsletter", 10000}, {"order-2", "alpha", 5000}} {
		tx := &client.Transaction{ID: o.id, Status: client.TransactionApproved, Value: o.value, CreatedAt: w.clk.Now().Add(-time.Hour),
			Customer: &client.Customer{Email: o.id + "@example.com"}, UTM: &client.UTM{Source: o.source}}
		if err := hook.OrderWebhook(ctx, w.tn.Custom.WebhookKey, tx); err != nil {
			t.Fatal(err)
		}
	}
	w.srv.Drain(t)
	c, _ := w.client(w.readKey)
	day := w.clk.Now().Format(time.DateOnly)

	// The traffic view by utm_source, with every member that does not change its numbers.
	traffic := &client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"tx_revenue", "tx_count"},
		Start: day, End: day, CompareStart: "2026-03-03", CompareEnd: "2026-03-03", Granularity: client.GranularityDay,
		Dimensions: []string{"utm_source"}, Revenue: client.RevenueGross, Currency: w.tn.Project.Currency,
		Attribution: &client.Attribution{Model: client.ModelReported, WindowDays: 7, Date: client.DateConversion},
		Filters:     []client.Filter{{Member: "utm_source", Operator: "set"}},
		Order:       []client.OrderBy{{Field: "tx_revenue", Desc: true}}, Limit: 10, Total: true}
	var got client.QueryResult
	strictly(t, c, "/v3/query", traffic, &got)
	if got.View != "" && got.View != client.ViewTraffic || got.TotalRows == nil || *got.TotalRows != 2 ||
		got.CompareTime == nil || len(got.Data) != 2 {
		t.Fatalf("view %q, total_rows %v, compare_time %v, rows %v", got.View, got.TotalRows, got.CompareTime, got.Data)
	}
	for i, want := range []struct{ source, revenue string }{{"newsletter", "100"}, {"alpha", "50"}} {
		row := got.Data[i]
		revenue, err := row["tx_revenue"].Decimal()
		if err != nil || row["utm_source"].String() != want.source || revenue.String() != want.revenue || row.Compare() == nil {
			t.Fatalf("row %d: %v (%v), want %s %s", i, row, err, want.source, want.revenue)
		}
	}
	typed, err := c.Query(ctx, traffic)
	if err != nil || typed.View != got.View || len(typed.Data) != len(got.Data) {
		t.Fatalf("typed answer %+v: %v", typed, err)
	}

	// A model credits ad entities: explain names it and its credits' table, in the ad view.
	ads := &client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"tx_revenue"}, Start: day, End: day,
		Level: client.LevelCampaign, Attribution: &client.Attribution{Model: client.ModelLinear, WindowDays: 14, Date: client.DateClick}}
	var ex client.Explanation
	strictly(t, c, "/v3/query/explain", ads, &ex)
	a := ex.Attribution
	if a.Model != client.ModelLinear || a.WindowDays != 14 || a.Date != client.DateClick || a.Touches != client.TouchesAds || a.Table == "" ||
		ex.View != "" && ex.View != client.ViewAds || len(ex.Plan) == 0 || ex.Cache == "" {
		t.Fatalf("explain %+v", ex)
	}
	if _, err := c.Query(ctx, ads); err != nil {
		t.Fatal(err)
	}

	// A model answers the traffic view by touch dimensions, with every touch by default.
	byTouch := &client.QueryRequest{ProjectID: w.tn.Project.ID, Fields: []string{"tx_revenue"}, Start: day, End: day,
		Dimensions: []string{"utm_source"}, Attribution: &client.Attribution{Model: client.ModelFirstClick}}
	strictly(t, c, "/v3/query/explain", byTouch, &ex)
	if ex.View != client.ViewTraffic || ex.Attribution.Touches != client.TouchesAll {
		t.Fatalf("traffic explain %+v", ex)
	}
	if _, err := c.Query(ctx, byTouch); err != nil {
		t.Fatal(err)
	}

	// A model other than reported refuses what only an order knows, naming the member.
	for q, member := range map[*client.QueryRequest]string{
		{Dimensions: []string{"payment_method"}}:                                       "metadata.dimensions[0]",
		{Filters: []client.Filter{{Member: "customer_type", Operator: "set"}}}:         "filters[0].member",
		{Revenue: client.RevenueNet}:                                                   "metadata.attribution.model",
		{Attribution: &client.Attribution{Model: client.ModelLinear, Touches: "paid"}}: "metadata.attribution.touches",
	} {
		q.ProjectID, q.Fields = w.tn.Project.ID, []string{"tx_revenue"}
		if q.Attribution == nil {
			q.Attribution = &client.Attribution{Model: client.ModelFirstClick}
		}
		_, err := c.Query(ctx, q)
		e := wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
		if !slices.Contains(e.Params(), member) {
			t.Fatalf("%+v: details %q", q, e.Details)
		}
	}

	// Fields: what each member of a query takes, from the engine's own lists.
	var fields client.FieldList
	strictly(t, c, "/v3/fields", nil, &fields)
	at := fields.Attribution
	if !slices.Equal(fields.Ranges, engine.Ranges) || !slices.Equal(fields.Compare, engine.CompareModes) ||
		!slices.Equal(at.Models, engine.Models) || !slices.Equal(at.Dates, engine.AttributionDates) ||
		at.WindowDays != (client.WindowRange{Min: 1, Max: 90, Default: engine.DefaultWindowDays}) ||
		!slices.Equal(at.Touches.Sets, facts.TouchSets) || at.Touches.Defaults != (client.TouchDefaults{Ads: facts.TouchesAds, Traffic: facts.TouchesAll}) {
		t.Fatalf("ranges %v, compare %v, attribution %+v", fields.Ranges, fields.Compare, at)
	}
	i := slices.IndexFunc(fields.Dimensions, func(d client.Dimension) bool { return d.Name == "utm_source" })
	if i < 0 || !slices.Contains(fields.Dimensions[i].Metrics, "tx_revenue") {
		t.Fatalf("utm_source in fields: %+v", fields.Dimensions)
	}
}

// strictly sends body (none when nil) to path, POST with a body and GET without, and decodes the
// answer into out refusing members out's type does not have.
func strictly(t *testing.T, c *client.Client, path string, body any, out any) {
	t.Helper()
	method, raw := "GET", []byte(nil)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		method, raw = "POST", b
	}
	answer, err := c.RawRequest(context.Background(), method, path, raw)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("%s %s answers a member the client's %T lacks: %v\n%s", method, path, out, err, answer)
	}
}
