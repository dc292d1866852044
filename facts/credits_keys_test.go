package facts

import "testing"

// creditKeyValues writes each of a credit's key values under its own column of CreditsFamily.Keys:
// the array is written out by hand, so its order is pinned here.
func TestCreditKeyValuesFollowTheKeys(t *testing.T) {
	cr := Credit{Entity: AdEntity{Source: "source", ConnectionID: "connection_id", AccountID: "account_id", CampaignID: "campaign_id",
		AdsetID: "adset_id", AdID: "ad_id"}, Currency: "currency"}
	for i, p := range cr.Dims.Dest() {
		*p.(*string) = TouchDimColumns[i]
	}
	got := creditKeyValues(&cr)
	if len(got) != len(CreditsFamily.Keys) {
		t.Fatalf("%d key values, want one per key: %d", len(got), len(CreditsFamily.Keys))
	}
	for i, k := range CreditsFamily.Keys {
		if got[i] != k.Name {
			t.Errorf("key %d (%s) gets %q", i, k.Name, got[i])
		}
	}
}
