package utm

import "testing"

// fixture: two networks whose ids collide (campaign "100" exists in both), duplicate names at
// the ad set and ad levels, and an ad whose ad set was never synced.
func fixture() *Index {
	a := func(level Level, id, name, parent string) Entity {
		return Entity{Level: level, ID: id, Name: name, ParentID: parent, Source: "alpha_ads", AccountID: "act_1", ConnectionID: "con_a"}
	}
	b := func(level Level, id, name, parent string) Entity {
		return Entity{Level: level, ID: id, Name: name, ParentID: parent, Source: "beta_ads", AccountID: "b-9", ConnectionID: "con_b"}
	}
	return NewIndex([]Entity{
		a(LevelCampaign, "100", "Summer Sale", ""),
		a(LevelAdset, "200", "Broad", "100"),
		a(LevelAd, "300", "Video 1", "200"),
		a(LevelAd, "301", "Image", "200"),
		a(LevelAdset, "201", "Lookalike", "100"),
		a(LevelAd, "302", "Video 1", "201"),
		a(LevelCampaign, "101", "Winter", ""),
		a(LevelAdset, "210", "Broad", "101"),
		a(LevelAd, "310", "Carousel", "210"),
		b(LevelCampaign, "100", "Beta Camp", ""),
		b(LevelAdset, "500", "B set", "100"),
		b(LevelAd, "600", "B ad", "500"),
		b(LevelAd, "700", "Orphan", "999"),
	})
}

func TestResolve(t *testing.T) {
	ix := fixture()
	one := func(level Level, id string) Entity {
		found := ix.ByID(level, id)
		if len(found) != 1 {
			t.Fatalf("fixture: %d entities for %s %s", len(found), level, id)
		}
		return found[0]
	}
	alphaCampaign100 := ix.ByName(LevelCampaign, "Summer Sale")[0]
	betaCampaign100 := ix.ByName(LevelCampaign, "Beta Camp")[0]

	tests := []struct {
		name string
		utm  Params
		want Attribution // Level "" means not attributed
	}{
		{
			name: "ids at every level",
			utm:  Params{Campaign: "Summer Sale|100", Medium: "Broad|200", Content: "Video 1|300"},
			want: Attribution{Level: LevelAd, Campaign: alphaCampaign100, Adset: one(LevelAdset, "200"), Ad: one(LevelAd, "300")},
		},
		{
			name: "ad id alone brings its whole chain",
			utm:  Params{Content: "whatever|300"},
			want: Attribution{Level: LevelAd, Campaign: alphaCampaign100, Adset: one(LevelAdset, "200"), Ad: one(LevelAd, "300")},
		},
		{
			name: "parents are looked up within the ad's network despite colliding ids",
			utm:  Params{Content: "B ad|600"},
			want: Attribution{Level: LevelAd, Campaign: betaCampaign100, Adset: one(LevelAdset, "500"), Ad: one(LevelAd, "600")},
		},
		{
			name: "an id shared by two networks is ambiguous",
			utm:  Params{Campaign: "Summer Sale|100"},
		},
		{
			name: "unique bare name, compared without case",
			utm:  Params{Campaign: "  summer SALE "},
			want: Attribution{Level: LevelCampaign, Campaign: alphaCampaign100},
		},
		{
			name: "unique bare ad name",
			utm:  Params{Content: "Image"},
			want: Attribution{Level: LevelAd, Campaign: alphaCampaign100, Adset: one(LevelAdset, "200"), Ad: one(LevelAd, "301")},
		},
		{
			name: "ambiguous bare ad name does not attribute; the ad set does",
			utm:  Params{Medium: "Broad|200", Content: "Video 1"},
			want: Attribution{Level: LevelAdset, Campaign: alphaCampaign100, Adset: one(LevelAdset, "200")},
		},
		{
			name: "ambiguous bare ad set name does not attribute; the campaign does",
			utm:  Params{Campaign: "Winter|101", Medium: "Broad"},
			want: Attribution{Level: LevelCampaign, Campaign: one(LevelCampaign, "101")},
		},
		{
			name: "unknown id does not fall back to its name",
			utm:  Params{Content: "Image|999"},
		},
		{
			name: "unknown ad id leaves the campaign",
			utm:  Params{Campaign: "Winter|101", Content: "Image|999"},
			want: Attribution{Level: LevelCampaign, Campaign: one(LevelCampaign, "101")},
		},
		{
			name: "ad under another campaign than utm_campaign: the campaign wins",
			utm:  Params{Campaign: "Winter|101", Content: "Video 1|300"},
			want: Attribution{Level: LevelCampaign, Campaign: one(LevelCampaign, "101")},
		},
		{
			name: "ad under another ad set than utm_medium: the ad set wins",
			utm:  Params{Medium: "Broad|210", Content: "Video 1|300"},
			want: Attribution{Level: LevelAdset, Campaign: one(LevelCampaign, "101"), Adset: one(LevelAdset, "210")},
		},
		{
			name: "ad set under another campaign than utm_campaign: the campaign wins",
			utm:  Params{Campaign: "Winter|101", Medium: "Broad|200"},
			want: Attribution{Level: LevelCampaign, Campaign: one(LevelCampaign, "101")},
		},
		{
			name: "ad whose ad set was never synced",
			utm:  Params{Content: "Orphan|700"},
		},
		{
			name: "no utm",
			utm:  Params{Source: "fb", Term: "x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Resolve(Parse(tt.utm), ix)
			if ok != (tt.want.Level != "") {
				t.Fatalf("Resolve ok = %v, attribution %+v", ok, got)
			}
			if got != tt.want {
				t.Errorf("Resolve =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}
