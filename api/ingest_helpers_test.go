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
var attributedUTM = springSale.utm()

// seededCampaign is a campaign with one ad set and one ad, by id and name.
type seededCampaign struct {
	id, name, adsetID, adsetName, adID, adName string
}

// springSale is the campaign seedEntities seeds.
var springSale = seededCampaign{campaignID, "Spring Sale", adsetID, "Broad", adID, "Video 1"}

// seedEntities writes the tenant's alpha campaign, ad set and ad (springSale).
func (e *env) seedEntities(tn trackingTenant) { e.seedCampaigns(tn, springSale) }

// seedCampaigns writes campaigns of the tenant's alpha account as a sync does: the objects in
// PostgreSQL (what attribution reads) and the entities in ClickHouse (the names queries show).
// A campaign seeded twice with another ad set adds that ad set.
func (e *env) seedCampaigns(tn trackingTenant, cs ...seededCampaign) {
	e.t.Helper()
	acc := *tn.alpha.SourceID
	objs := []adsync.Object{{Level: "account", ID: acc, Name: "Account"}}
	ents := []facts.Entity{{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "account", ID: acc, Name: "Account", Version: 1}}
	for _, c := range cs {
		objs = append(objs, adsync.Object{Level: "campaign", ID: c.id, ParentID: acc, CampaignID: c.id, Name: c.name},
			adsync.Object{Level: "adset", ID: c.adsetID, ParentID: c.id, CampaignID: c.id, Name: c.adsetName},
			adsync.Object{Level: "ad", ID: c.adID, ParentID: c.adsetID, CampaignID: c.id, Name: c.adName})
		ents = append(ents, facts.Entity{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "campaign", ID: c.id, Name: c.name, ParentID: acc, Version: 1},
			facts.Entity{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "adset", ID: c.adsetID, Name: c.adsetName, ParentID: c.id, Version: 1},
			facts.Entity{ProjectID: tn.project.ID, Source: platform.KindAlpha, Level: "ad", ID: c.adID, Name: c.adName, ParentID: c.adsetID, Version: 1})
	}
	if err := adsync.NewStore(e.store.Pool()).SaveObjects(context.Background(), tn.alpha.ID, objs, e.clock.Now()); err != nil {
		e.t.Fatal(err)
	}
	if err := facts.InsertEntities(context.Background(), e.ch, ents); err != nil {
		e.t.Fatal(err)
	}
	e.resolver.Forget(tn.project.ID)
}

// utm names the campaign's ad by the UTM convention.
func (c seededCampaign) utm() map[string]string {
	return map[string]string{"utm_source": "alpha", "utm_campaign": c.name + "|" + c.id,
		"utm_medium": c.adsetName + "|" + c.adsetID, "utm_content": c.adName + "|" + c.adID}
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
