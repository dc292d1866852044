package engine_test

import (
	"fmt"
	"testing"
	"time"

	"mtk/engine"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// A credited count's total is its exact sum, rounded once (CONTRACT "Query: views"): 30 orders,
// each with touches on A1, A2 and A3 a day apart, credit their first touch a linear third each.
// By click date, the first touches' day holds 30 thirds: 10 orders, where shares of 1/10,000
// (0.3333 each) summed to 9.999. The day's ad row says the same.
func TestCreditedCountTotalIsExact(t *testing.T) {
	ch := testenv.ClickHouse(t)
	var js []journey
	for i := range 30 {
		lead := fmt.Sprintf("L%d", i)
		at := func(d int) time.Time { return utc(3, d, 10).Add(time.Duration(i) * time.Minute) }
		js = append(js, journey{kind: "touch", lead: lead, at: at(1), ad: "A1"}, journey{kind: "touch", lead: lead, at: at(2), ad: "A2"},
			journey{kind: "touch", lead: lead, at: at(3), ad: "A3"},
			journey{kind: "order", lead: lead, order: "O" + lead, at: at(4), revenue: 10 * dollar, count: 1, total: 1})
	}
	writeCredits(t, ch.Conn, "prj_j", "UTC", js)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	scope := engine.Scope{ProjectID: "prj_j", Currency: "USD", TimeZone: "UTC"}
	for _, meta := range []string{`{`, `{"level":"ad",`} {
		res := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_count","tx_revenue"],"time":{"start":"2024-03-01","end":"2024-03-01"},`+
			`"metadata":`+meta+`"attribution":{"model":"linear","date":"click"}}}`)
		want := `[{"tx_count":10,"tx_revenue":100.00}]`
		if meta != `{` {
			want = `[{"ad_id":"A1","ad_name":null,"source":"alpha_ads","tx_count":10,"tx_revenue":100.00}]`
		}
		if got := asJSON(res.Data); got != want {
			t.Errorf("%s: %s, want %s", meta, got, want)
		}
	}
}
