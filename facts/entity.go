package facts

import "cmp"

// AdEntity is the key every fact family shares: the ad an event's, order's or touch's UTM
// resolved to, down to the level it resolved (an empty ID is a level it did not reach); the zero
// value is no entity. Every row that carries an entity embeds it, so the six columns are declared
// here once (AdEntityColumns) and travel as one value from attribution to the insert.
type AdEntity struct {
	Source, ConnectionID, AccountID, CampaignID, AdsetID, AdID string
}

// AdEntityColumns are AdEntity's columns in every table that holds one, in the order of List.
var AdEntityColumns = []string{"source", "connection_id", "account_id", "campaign_id", "adset_id", "ad_id"}

// List returns e's values in the order of AdEntityColumns (the arguments of an insert).
func (e *AdEntity) List() []string {
	return []string{e.Source, e.ConnectionID, e.AccountID, e.CampaignID, e.AdsetID, e.AdID}
}

// values are e's values in the order of AdEntityColumns, as an insert appends them.
func (e AdEntity) values() []any {
	return []any{e.Source, e.ConnectionID, e.AccountID, e.CampaignID, e.AdsetID, e.AdID}
}

// Dest returns pointers to e's values in the order of AdEntityColumns (the destinations of a
// scan).
func (e *AdEntity) Dest() []any {
	return []any{&e.Source, &e.ConnectionID, &e.AccountID, &e.CampaignID, &e.AdsetID, &e.AdID}
}

func (e AdEntity) compare(o AdEntity) int {
	return cmp.Or(cmp.Compare(e.Source, o.Source), cmp.Compare(e.ConnectionID, o.ConnectionID),
		cmp.Compare(e.AccountID, o.AccountID), cmp.Compare(e.CampaignID, o.CampaignID),
		cmp.Compare(e.AdsetID, o.AdsetID), cmp.Compare(e.AdID, o.AdID))
}
