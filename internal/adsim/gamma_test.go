package adsim

import (
	"fmt"
	"net/url"
	"testing"
)

type gammaAnswer struct {
	Code      int    `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
	Data      struct {
		List     []map[string]any `json:"list"`
		PageInfo struct {
			Page        int `json:"page"`
			PageSize    int `json:"page_size"`
			TotalNumber int `json:"total_number"`
			TotalPage   int `json:"total_page"`
		} `json:"page_info"`
	} `json:"data"`
}

type gammaClient struct {
	t     *testing.T
	base  string
	token string
	adv   string
}

func newGammaClient(t *testing.T, srvURL string, acct AccountInfo) gammaClient {
	return gammaClient{t: t, base: srvURL + acct.BasePath + "/", token: acct.AccessToken, adv: acct.ID}
}

func (c gammaClient) get(path string, q url.Values) (int, gammaAnswer) {
	var out gammaAnswer
	resp := call(c.t, "GET", c.base+path+"?"+q.Encode(), map[string]string{"Access-Token": c.token}, nil, &out)
	return resp.StatusCode, out
}

func (c gammaClient) post(path string, body any) (int, gammaAnswer) {
	var out gammaAnswer
	resp := call(c.t, "POST", c.base+path, map[string]string{"Access-Token": c.token}, body, &out)
	return resp.StatusCode, out
}

// all pages through a GET list endpoint.
func (c gammaClient) all(path string, q url.Values, size int) []map[string]any {
	var rows []map[string]any
	for page := 1; ; page++ {
		q.Set("page", fmt.Sprint(page))
		q.Set("page_size", fmt.Sprint(size))
		status, out := c.get(path, q)
		if status != 200 || out.Code != 0 {
			c.t.Fatalf("%s: %d %d %s", path, status, out.Code, out.Message)
		}
		rows = append(rows, out.Data.List...)
		if page >= out.Data.PageInfo.TotalPage {
			if len(rows) != out.Data.PageInfo.TotalNumber {
				c.t.Fatalf("%d rows, total_number %d", len(rows), out.Data.PageInfo.TotalNumber)
			}
			return rows
		}
	}
}

func TestGammaReport(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Gamma)
	c := newGammaClient(t, srv.URL, acct)
	q := func(timeDim string) url.Values {
		return url.Values{"advertiser_id": {acct.ID}, "report_type": {"BASIC"}, "data_level": {"AUCTION_AD"},
			"dimensions": {`["ad_id","` + timeDim + `"]`}, "metrics": {`["spend","impressions","clicks","video_play_actions","video_watched_2s","video_views_p75"]`},
			"start_date": {"2024-03-10"}, "end_date": {"2024-03-13"}}
	}
	hourly := c.all("report/integrated/get/", q("stat_time_hour"), 41)
	if big := c.all("report/integrated/get/", q("stat_time_hour"), 1000); fmt.Sprint(big) != fmt.Sprint(hourly) {
		t.Fatal("paged rows differ from one big page")
	}
	daily := c.all("report/integrated/get/", q("stat_time_day"), 7)
	type key struct{ ad, date string }
	sum := func(rows []map[string]any, dim string) map[key]Metrics {
		out := map[key]Metrics{}
		for _, r := range rows {
			d := r["dimensions"].(map[string]any)
			m := r["metrics"].(map[string]any)
			spend, err := parseMajor(m["spend"].(string), 2)
			if err != nil {
				t.Fatal(err)
			}
			k := key{d["ad_id"].(string), d[dim].(string)[:10]}
			v := out[k]
			v.Add(Metrics{Spend: spend, Impressions: atoi(t, m["impressions"]), Clicks: atoi(t, m["clicks"]),
				VideoPlays: atoi(t, m["video_play_actions"]), VideoViews3s: atoi(t, m["video_watched_2s"]), VideoViewsP75: atoi(t, m["video_views_p75"])})
			out[k] = v
		}
		return out
	}
	got := sum(hourly, "stat_time_hour")
	if fmt.Sprint(got) != fmt.Sprint(sum(daily, "stat_time_day")) || len(got) == 0 {
		t.Fatal("hourly rows do not sum to daily rows")
	}
	for _, r := range truth(t, s, TruthQuery{Network: Gamma, Account: acct.ID, Since: "2024-03-10", Until: "2024-03-13"}).Rows {
		if got[key{r.EntityID, r.Date}] != r.Metrics {
			t.Fatalf("%s %s: API %+v, truth %+v", r.EntityID, r.Date, got[key{r.EntityID, r.Date}], r.Metrics)
		}
	}
	for _, tc := range []struct {
		name, param, value string
	}{
		{"bad level", "data_level", "AUCTION_FOO"},
		{"wrong id dimension", "dimensions", `["campaign_id","stat_time_day"]`},
		{"two time dimensions", "dimensions", `["ad_id","stat_time_day","stat_time_hour"]`},
		{"unknown metric", "metrics", `["cpm_magic"]`},
		{"no dates", "start_date", ""},
		{"page size", "page_size", "1001"},
		{"other advertiser", "advertiser_id", "7000000000000000001"},
	} {
		p := q("stat_time_day")
		p.Set(tc.param, tc.value)
		status, out := c.get("report/integrated/get/", p)
		if status != 200 || out.Code == 0 || out.RequestID == "" {
			t.Errorf("%s: %d %d %s", tc.name, status, out.Code, out.Message)
		}
	}
}

func TestGammaLists(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Gamma)
	c := newGammaClient(t, srv.URL, acct)
	objs, _ := s.Objects(Gamma, acct.ID)
	for path, lvl := range map[string]Level{"campaign/get/": LevelCampaign, "adgroup/get/": LevelAdSet, "ad/get/": LevelAd} {
		for _, size := range []int{1, 4, 1000} {
			rows := c.all(path, url.Values{"advertiser_id": {acct.ID}}, size)
			var got, want []string
			for _, r := range rows {
				got = append(got, r[gammaIDDimension[lvl]].(string))
			}
			for _, o := range objs {
				if o.Level == lvl {
					want = append(want, o.ID)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s size %d: %v, want %v", path, size, got, want)
			}
		}
	}
	if status, out := c.get("campaign/get/", url.Values{"advertiser_id": {acct.ID}}); status != 200 || out.Data.List[0]["budget_mode"] == nil {
		t.Fatalf("campaign list: %+v", out)
	}
}

func TestGammaWrites(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Gamma)
	c := newGammaClient(t, srv.URL, acct)
	a := s.account(Gamma, acct.ID)
	var campBudget, campNone, groupBudget *object
	for _, o := range a.objects {
		switch {
		case o.level == LevelCampaign && o.budget != BudgetNone && campBudget == nil:
			campBudget = o
		case o.level == LevelCampaign && o.budget == BudgetNone && campNone == nil:
			campNone = o
		case o.level == LevelAdSet && o.budget != BudgetNone && groupBudget == nil:
			groupBudget = o
		}
	}
	if campBudget == nil || campNone == nil || groupBudget == nil {
		t.Fatal("the world lacks a kind of budget owner this test needs")
	}
	ads := a.ofLevel(LevelAd)
	many := make([]string, gammaMaxIDs+1)
	for i := range many {
		many[i] = ads[0].id
	}
	for _, tc := range []struct {
		name, path string
		body       map[string]any
		code       int
	}{
		{"disable ads", "ad/status/update/", map[string]any{"advertiser_id": acct.ID, "ad_ids": []string{ads[0].id, ads[1].id}, "operation_status": "DISABLE"}, 0},
		{"enable an ad", "ad/status/update/", map[string]any{"advertiser_id": acct.ID, "ad_ids": []string{ads[1].id}, "operation_status": "ENABLE"}, 0},
		{"disable a campaign", "campaign/status/update/", map[string]any{"advertiser_id": acct.ID, "campaign_ids": []string{campNone.id}, "operation_status": "DISABLE"}, 0},
		{"delete", "adgroup/status/update/", map[string]any{"advertiser_id": acct.ID, "adgroup_ids": []string{groupBudget.id}, "operation_status": "DELETE"}, gammaBadParam},
		{"an ad as an ad group", "adgroup/status/update/", map[string]any{"advertiser_id": acct.ID, "adgroup_ids": []string{ads[0].id}, "operation_status": "DISABLE"}, gammaNoAuth},
		{"too many ids", "ad/status/update/", map[string]any{"advertiser_id": acct.ID, "ad_ids": many, "operation_status": "DISABLE"}, gammaBadParam},
		{"other advertiser", "ad/status/update/", map[string]any{"advertiser_id": "7000000000000000001", "ad_ids": []string{ads[0].id}, "operation_status": "DISABLE"}, gammaNoAuth},
		{"campaign budget", "campaign/update/", map[string]any{"advertiser_id": acct.ID, "campaign_id": campBudget.id, "budget": 150.5}, 0},
		{"campaign budget string", "campaign/update/", map[string]any{"advertiser_id": acct.ID, "campaign_id": campBudget.id, "budget": "151.25"}, 0},
		{"three decimals", "campaign/update/", map[string]any{"advertiser_id": acct.ID, "campaign_id": campBudget.id, "budget": "1.234"}, gammaBadParam},
		{"zero", "campaign/update/", map[string]any{"advertiser_id": acct.ID, "campaign_id": campBudget.id, "budget": 0}, gammaBadParam},
		{"no budget of its own", "campaign/update/", map[string]any{"advertiser_id": acct.ID, "campaign_id": campNone.id, "budget": 100}, gammaBadParam},
		{"other field", "campaign/update/", map[string]any{"advertiser_id": acct.ID, "campaign_id": campBudget.id, "campaign_name": "x"}, gammaBadParam},
		{"ad group budgets", "adgroup/budget/update/", map[string]any{"advertiser_id": acct.ID, "budget": []map[string]any{{"adgroup_id": groupBudget.id, "budget": "99.9"}}}, 0},
	} {
		status, out := c.post(tc.path, tc.body)
		if status != 200 || out.Code != tc.code {
			t.Errorf("%s: %d %d %s", tc.name, status, out.Code, out.Message)
		}
	}
	now := s.now()
	if ads[0].statusAt(now) != Paused || ads[1].statusAt(now) != Active || campNone.statusAt(now) != Paused ||
		campBudget.budgetAt(now) != 15125 || groupBudget.budgetAt(now) != 9990 {
		t.Fatal("writes not applied")
	}
}
