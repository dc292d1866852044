package facts

import (
	"encoding/json"
	"testing"
	"time"
)

// credit_outbox keeps journeys queued before a deploy: the stored form holds the credited measures
// as an array in CreditsFamily's order, and decodes back to the same journey.
func TestOrderJourneyJSON(t *testing.T) {
	stored := `{"time":"2026-03-10T15:30:00Z","currency":"BRL","values":[100000000,1,1,0,0,2500000],` +
		`"touches":[{"time":"2026-03-09T12:00:00Z","entity":{"Source":"alpha_ads","ConnectionID":"con","AccountID":"",` +
		`"CampaignID":"","AdsetID":"","AdID":"a"}}]}`
	want := OrderJourney{Time: creditOrderTime, Currency: "BRL",
		Values:  Values{TxRevenue: 100_000_000, TxCount: 1, TxCountTotal: 1, TxProductCosts: 2_500_000},
		Touches: []Touch{{Time: time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC), Entity: ad("a")}}}
	var got OrderJourney
	if err := json.Unmarshal([]byte(stored), &got); err != nil {
		t.Fatal(err)
	}
	if got.Time != want.Time || got.Currency != want.Currency || got.Values != want.Values || len(got.Touches) != 1 ||
		got.Touches[0] != want.Touches[0] {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	raw, err := json.Marshal(want)
	if err != nil || string(raw) != stored {
		t.Fatalf("encoded %s %v, want %s", raw, err, stored)
	}
	// A journey queued before a measure was added to the credits decodes with that measure 0.
	if err := json.Unmarshal([]byte(`{"time":"2026-03-10T15:30:00Z","currency":"BRL","values":[5,1]}`), &got); err != nil ||
		got.Values != (Values{TxRevenue: 5, TxCount: 1}) {
		t.Fatalf("short values: %v %v", got.Values, err)
	}
	if err := json.Unmarshal([]byte(`{"values":[1,2,3,4,5,6,7]}`), &got); err == nil {
		t.Fatal("more values than measures decoded")
	}
}
