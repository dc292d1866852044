package facts

import (
	"slices"
	"testing"
)

// liveOf is the columns the families' descriptors declare, as system.columns would list them.
func liveOf(families ...*Family) map[string]map[string]string {
	live := map[string]map[string]string{}
	for _, f := range families {
		for i := range f.Tables {
			t := &f.Tables[i]
			for _, name := range append([]string{t.Name}, t.Views...) {
				live[name] = f.Want(t)
			}
		}
	}
	return live
}

// A measure a migration forgot fails the check naming the family, the table or view and the
// column; so do a wrong type, a column the descriptor lacks, and a missing view.
func TestConformNamesWhatIsMissing(t *testing.T) {
	if got := Conform(liveOf(Families...), Families...); len(got) != 0 {
		t.Fatalf("the descriptors against themselves: %q", got)
	}
	live := liveOf(Families...)
	delete(live["credits_daily_mv"], "tx_product_costs")
	live["business_raw"]["tx_units"] = "Int32"
	live["facts_hourly"]["tx_new"] = "Int64"
	delete(live, "journeys_by_lead")
	want := []string{
		"family business: table business_raw: column tx_units is Int32, want Int64",
		"family facts: table facts_hourly: column tx_new Int64 is not in the descriptor",
		"family journeys: table journeys_by_lead: missing",
		"family credits: view credits_daily_mv (into credits_daily): missing column tx_product_costs Int64",
	}
	got := Conform(live, Families...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("problems\n%q\nwant\n%q", got, want)
	}
}

// ColumnNames puts the measures where the tables have them: after the last key.
func TestColumnNames(t *testing.T) {
	got := JourneysFamily.ColumnNames("journeys")
	want := []string{"project_id", "kind", "ts", "lead_id", "merged_into", "order_id", "event_id", "origin", "source",
		"connection_id", "account_id", "campaign_id", "adset_id", "ad_id", "currency", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term",
		"referrer_host", "landing_path", "device", "tx_revenue", "tx_count",
		"tx_count_total", "tx_count_pending", "tx_count_refunded", "tx_product_costs", "outbox_id"}
	if !slices.Equal(got, want) {
		t.Fatalf("journeys: %q\nwant %q", got, want)
	}
}

// The inserts name every column they write, the project first.
func TestInsertSQL(t *testing.T) {
	got := CreditsFamily.insertSQL("credits_raw", []string{"model", "touches", "by_click", "window_days"}, "outbox_id")
	want := "INSERT INTO credits_raw (project_id, model, touches, by_click, window_days, ts, hour, day, source, connection_id, " +
		"account_id, campaign_id, adset_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term, " +
		"referrer_host, landing_path, device, currency, tx_revenue, tx_count, tx_count_total, tx_count_pending, " +
		"tx_count_refunded, tx_product_costs, outbox_id)"
	if got != want {
		t.Fatalf("%s\nwant %s", got, want)
	}
}
