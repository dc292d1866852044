package api_test

import (
	"context"
	"fmt"
	"testing"

	"mtk/adsync"
	"mtk/facts"
	"mtk/internal/apitest/fixture"
	"mtk/platform"
)

// The ad entities seeded for attribution: campaign 900 > ad set 901 > ad 902 on the tenant's
// alpha account.
const (
	campaignID = "900"
	adsetID    = "901"
	adID       = "902"
)

// attributedUTM names the seeded ad by the UTM convention.
var attributedUTM = map[string]string{"utm_source": "alpha", "utm_campaign": "Spring Sale|" + campaignID,
	"utm_medium": "Broad|" + adsetID, "utm_content": "Video 1|" + adID}

// seedEntities writes the tenant's alpha campaign, ad set and ad as a sync does: the objects in
// PostgreSQL (what attribution reads) and the entities in ClickHouse (the names queries show).
func (e *env) seedEntities(tn trackingTenant) {
	e.t.Helper()
	acc := *tn.alpha.SourceID
	objs := []adsync.Object{{Level: "account", ID: acc, Name: "Account"},
		{Level: "campaign", ID: campaignID, ParentID: acc, CampaignID: campaignID, Name: "Spring Sale"},
		{Level: "adset", ID: adsetID, ParentID: campaignID, CampaignID: campaignID, Name: "Broad"},
		{Level: "ad", ID: adID, ParentID: adsetID, CampaignID: campaignID, Name: "Video 1"}}
	if err := adsync.NewStore(e.store.Pool()).SaveObjects(context.Background(), tn.alpha.ID, objs, e.clock.Now()); err != nil {
		e.t.Fatal(err)
	}
	err := facts.InsertEntities(context.Background(), e.ch, []facts.Entity{
		{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "account", ID: acc, Name: "Account", Version: 1},
		{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "campaign", ID: campaignID, Name: "Spring Sale", ParentID: acc, Version: 1},
		{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "adset", ID: adsetID, Name: "Broad", ParentID: campaignID, Version: 1},
		{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "ad", ID: adID, Name: "Video 1", ParentID: adsetID, Version: 1},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.resolver.Forget(tn.project.ID)
}

// drain moves the event and fact outboxes into ClickHouse and waits until the server has heard
// the data versions they moved.
func (e *env) drain() {
	e.t.Helper()
	fixture.Drain(e.t, e.sys)
}

// heard waits until the server has heard every data version moved so far.
func (e *env) heard() {
	e.t.Helper()
	fixture.Heard(e.t, e.sys)
}

// chSum sums a facts_raw column of a project.
func (e *env) chSum(t *testing.T, projectID, column string) int64 {
	t.Helper()
	var n int64
	if err := e.ch.QueryRow(context.Background(), fmt.Sprintf("SELECT toInt64(sum(%s)) FROM facts_raw WHERE project_id = ?", column),
		projectID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pgCount runs a count query.
func (e *env) pgCount(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.store.Pool().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
