package adsim

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

type betaSearchAnswer struct {
	Results           []map[string]any `json:"results"`
	NextPageToken     string           `json:"nextPageToken"`
	TotalResultsCount string           `json:"totalResultsCount"`
	Error             *struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Details []struct {
			Errors []struct {
				ErrorCode map[string]string `json:"errorCode"`
				Message   string            `json:"message"`
			} `json:"errors"`
		} `json:"details"`
	} `json:"error"`
	PartialFailureError *struct {
		Details []struct {
			Errors []struct {
				ErrorCode map[string]string `json:"errorCode"`
				Location  struct {
					FieldPathElements []struct {
						Index int `json:"index"`
					} `json:"fieldPathElements"`
				} `json:"location"`
			} `json:"errors"`
		} `json:"details"`
	} `json:"partialFailureError"`
}

// reason is the first error's "category:ENUM".
func (b betaSearchAnswer) reason() string {
	if b.Error == nil || len(b.Error.Details) == 0 || len(b.Error.Details[0].Errors) == 0 {
		return ""
	}
	for k, v := range b.Error.Details[0].Errors[0].ErrorCode {
		return k + ":" + v
	}
	return ""
}

type betaClient struct {
	t       *testing.T
	base    string
	headers map[string]string
}

func newBetaClient(t *testing.T, srvURL string, acct AccountInfo) betaClient {
	return betaClient{t: t, base: srvURL + acct.BasePath, headers: map[string]string{
		"Authorization": "Bearer " + acct.AccessToken, "developer-token": acct.DeveloperToken}}
}

func (c betaClient) post(method string, body any) (int, betaSearchAnswer) {
	var out betaSearchAnswer
	h := map[string]string{}
	for k, v := range c.headers {
		h[k] = v
	}
	resp := call(c.t, "POST", c.base+"/"+method, h, body, &out)
	return resp.StatusCode, out
}

// all pages through a search with pageSize.
func (c betaClient) all(query string, pageSize int) []map[string]any {
	var rows []map[string]any
	token := ""
	for {
		status, out := c.post("googleAds:search", map[string]any{"query": query, "pageSize": pageSize, "pageToken": token})
		if status != 200 {
			c.t.Fatalf("search %q: %d %+v", query, status, out.Error)
		}
		rows = append(rows, out.Results...)
		if token = out.NextPageToken; token == "" {
			return rows
		}
	}
}

func TestBetaSearch(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Beta)
	c := newBetaClient(t, srv.URL, acct)
	hourlyQ := "SELECT ad_group_ad.ad.id, campaign.id, metrics.cost_micros, metrics.impressions, metrics.video_views, segments.date, segments.hour " +
		"FROM ad_group_ad WHERE segments.date BETWEEN '2024-03-11' AND '2024-03-13'"
	hourly := c.all(hourlyQ, 37)
	if big := c.all(hourlyQ, 10000); fmt.Sprint(big) != fmt.Sprint(hourly) {
		t.Fatal("paged rows differ from one big page")
	}
	var stream []struct {
		Results []map[string]any `json:"results"`
	}
	call(t, "POST", c.base+"/googleAds:searchStream", c.headers, map[string]string{"query": hourlyQ}, &stream)
	if len(stream) != 1 || fmt.Sprint(stream[0].Results) != fmt.Sprint(hourly) {
		t.Fatal("searchStream differs from search")
	}
	daily := c.all("SELECT ad_group_ad.ad.id, metrics.cost_micros, metrics.impressions, segments.date FROM ad_group_ad "+
		"WHERE segments.date >= '2024-03-11' AND segments.date <= '2024-03-13' ORDER BY segments.date DESC", 5)
	type key struct{ ad, date string }
	sum := func(rows []map[string]any) map[key][2]int64 {
		out := map[key][2]int64{}
		for _, r := range rows {
			k := key{r["adGroupAd"].(map[string]any)["ad"].(map[string]any)["id"].(string), r["segments"].(map[string]any)["date"].(string)}
			m := r["metrics"].(map[string]any)
			v := out[k]
			v[0] += atoi(t, m["costMicros"])
			v[1] += atoi(t, m["impressions"])
			out[k] = v
		}
		return out
	}
	got := sum(hourly)
	if fmt.Sprint(got) != fmt.Sprint(sum(daily)) || len(got) == 0 {
		t.Fatal("hourly rows do not sum to daily rows")
	}
	if daily[0]["segments"].(map[string]any)["date"] != "2024-03-13" {
		t.Fatal("ORDER BY segments.date DESC not applied")
	}
	for _, r := range truth(t, s, TruthQuery{Network: Beta, Account: acct.ID, Since: "2024-03-11", Until: "2024-03-13"}).Rows {
		if v := got[key{r.EntityID, r.Date}]; v[0] != r.Spend*10000 || v[1] != r.Impressions {
			t.Fatalf("%s %s: API %v, truth %+v", r.EntityID, r.Date, v, r.Metrics)
		}
	}
	// Attribute queries list every object; WHERE filters on any field.
	objs, _ := s.Objects(Beta, acct.ID)
	paused := 0
	for _, o := range objs {
		if o.Level == LevelAd && o.Status == Paused {
			paused++
		}
	}
	rows := c.all("SELECT ad_group_ad.ad.id, ad_group_ad.status FROM ad_group_ad WHERE ad_group_ad.status = 'PAUSED'", 100)
	if len(rows) != paused {
		t.Fatalf("%d paused ads listed, want %d", len(rows), paused)
	}
}

func TestBetaQueryErrors(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Beta)
	c := newBetaClient(t, srv.URL, acct)
	for _, tc := range []struct {
		name, query string
		reason      string
	}{
		{"unknown field", "SELECT campaign.foo FROM campaign", "queryError:UNRECOGNIZED_FIELD"},
		{"unknown resource", "SELECT campaign.id FROM keyword_view", "queryError:BAD_RESOURCE_TYPE_IN_FROM_CLAUSE"},
		{"child field", "SELECT ad_group.id FROM campaign", "queryError:PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE"},
		{"metrics of budgets", "SELECT metrics.clicks FROM campaign_budget", "queryError:PROHIBITED_METRIC_IN_SELECT_OR_WHERE_CLAUSE"},
		{"no date range", "SELECT campaign.id, segments.date FROM campaign", "queryError:EXPECTED_FILTERS_ON_DATE_RANGE"},
		{"open date range", "SELECT campaign.id, segments.date FROM campaign WHERE segments.date > '2024-03-01'", "queryError:EXPECTED_FILTERS_ON_DATE_RANGE"},
		{"no FROM", "SELECT campaign.id", "queryError:EXPECTED_FROM"},
		{"bad operator", "SELECT campaign.id FROM campaign WHERE campaign.name LIKE 'x'", "queryError:INVALID_OPERATOR"},
		{"bad limit", "SELECT campaign.id FROM campaign LIMIT 0", "queryError:INVALID_VALUE_WITH_LIMIT"},
	} {
		status, out := c.post("googleAds:search", map[string]string{"query": tc.query})
		if status != 400 || out.reason() != tc.reason {
			t.Errorf("%s: %d %s", tc.name, status, out.reason())
		}
	}
	if status, out := c.post("googleAds:search", map[string]string{"query": "SELECT campaign.id FROM campaign", "pageToken": "bogus"}); status != 400 || out.reason() != "requestError:INVALID_PAGE_TOKEN" {
		t.Errorf("bad page token: %d %s", status, out.reason())
	}
	other := c
	other.base = srv.URL + "/beta/v16/customers/1234567890"
	if status, out := other.post("googleAds:search", map[string]string{"query": "SELECT campaign.id FROM campaign"}); status != 403 || out.Error.Status != "PERMISSION_DENIED" {
		t.Errorf("another customer: %d %+v", status, out.Error)
	}
	noDev := c
	noDev.headers = map[string]string{"Authorization": c.headers["Authorization"]}
	if status, out := noDev.post("googleAds:search", map[string]string{"query": "SELECT campaign.id FROM campaign"}); status != 401 || out.reason() != "authenticationError:DEVELOPER_TOKEN_INVALID" {
		t.Errorf("no developer token: %d %s", status, out.reason())
	}
}

func TestBetaMutate(t *testing.T) {
	s, fc := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Beta)
	c := newBetaClient(t, srv.URL, acct)
	a := s.account(Beta, acct.ID)
	camps, groups, ads := a.ofLevel(LevelCampaign), a.ofLevel(LevelAdSet), a.ofLevel(LevelAd)
	res := func(kind, id string) string { return "customers/" + acct.ID + "/" + kind + "/" + id }
	status := func(kind, id, st string) map[string]any {
		return map[string]any{"update": map[string]string{"resourceName": res(kind, id), "status": st}, "updateMask": "status"}
	}
	budget := func(o *object, micros string) map[string]any {
		return map[string]any{"update": map[string]string{"resourceName": res("campaignBudgets", o.budgetID), "amountMicros": micros}, "updateMask": "amount_micros"}
	}
	ops := func(o ...map[string]any) map[string]any { return map[string]any{"operations": o} }
	for _, tc := range []struct {
		name, method string
		body         map[string]any
		status       int
		reason       string
	}{
		{"pause campaign", "campaigns:mutate", ops(status("campaigns", camps[0].id, "PAUSED")), 200, ""},
		{"pause ad group", "adGroups:mutate", ops(status("adGroups", groups[1].id, "PAUSED")), 200, ""},
		{"pause ad", "adGroupAds:mutate", ops(status("adGroupAds", ads[2].parent.id+"~"+ads[2].id, "PAUSED")), 200, ""},
		{"ad with the wrong ad group", "adGroupAds:mutate", ops(status("adGroupAds", groups[0].id+"~"+ads[3].id, "PAUSED")), 400, "mutateError:RESOURCE_NOT_FOUND"},
		{"removed", "campaigns:mutate", ops(status("campaigns", camps[0].id, "REMOVED")), 400, "requestError:INVALID_ENUM_VALUE"},
		{"unknown campaign", "campaigns:mutate", ops(status("campaigns", "1", "PAUSED")), 400, "mutateError:RESOURCE_NOT_FOUND"},
		{"budget", "campaignBudgets:mutate", ops(budget(camps[1], "123450000")), 200, ""},
		{"budget as a number", "campaignBudgets:mutate", ops(map[string]any{"update": map[string]any{"resourceName": res("campaignBudgets", camps[2].budgetID), "amountMicros": 50000000}, "updateMask": "amountMicros"}), 200, ""},
		{"budget below a cent", "campaignBudgets:mutate", ops(budget(camps[1], "123456789")), 400, "campaignBudgetError:NON_MULTIPLE_OF_MINIMUM_CURRENCY_UNIT"},
		{"zero budget", "campaignBudgets:mutate", ops(budget(camps[1], "0")), 400, "rangeError:TOO_LOW"},
		{"no mask", "campaigns:mutate", ops(map[string]any{"update": map[string]string{"resourceName": res("campaigns", camps[0].id), "status": "PAUSED"}}), 400, "fieldMaskError:FIELD_MASK_MISSING"},
		{"no operations", "campaigns:mutate", ops(), 400, "mutateError:OPERATIONS_REQUIRED"},
		{"create", "campaigns:mutate", ops(map[string]any{"create": map[string]string{"name": "x"}}), 400, "mutateError:MUTATE_NOT_ALLOWED"},
	} {
		got, out := c.post(tc.method, tc.body)
		if got != tc.status || out.reason() != tc.reason {
			t.Errorf("%s: %d %s", tc.name, got, out.reason())
		}
	}
	now := s.now()
	if camps[0].statusAt(now) != Paused || groups[1].statusAt(now) != Paused || ads[2].statusAt(now) != Paused || camps[1].budgetAt(now) != 12345 {
		t.Fatal("writes not applied")
	}
	// Atomic: one bad operation refuses the batch; validateOnly applies nothing.
	if got, _ := c.post("campaigns:mutate", ops(status("campaigns", camps[1].id, "PAUSED"), status("campaigns", "1", "PAUSED"))); got != 400 || camps[1].statusAt(now) != Active {
		t.Fatalf("atomic batch: %d, status %s", got, camps[1].statusAt(now))
	}
	body := ops(status("campaigns", camps[1].id, "PAUSED"))
	body["validateOnly"] = true
	if got, _ := c.post("campaigns:mutate", body); got != 200 || camps[1].statusAt(now) != Active {
		t.Fatal("validateOnly applied the change")
	}
	// partialFailure applies the good operations and reports the bad ones by index.
	body = ops(status("campaigns", camps[1].id, "PAUSED"), status("campaigns", "1", "PAUSED"))
	body["partialFailure"] = true
	got, out := c.post("campaigns:mutate", body)
	if got != 200 || camps[1].statusAt(now) != Paused || out.PartialFailureError == nil ||
		out.PartialFailureError.Details[0].Errors[0].Location.FieldPathElements[0].Index != 1 || len(out.Results) != 2 {
		t.Fatalf("partial failure: %d %+v", got, out)
	}
	// Budget changes: four an hour.
	for i := range 3 {
		if got, out := c.post("campaignBudgets:mutate", ops(budget(camps[1], strconv.Itoa(200000000+i*10000)))); got != 200 {
			t.Fatalf("budget change %d: %+v", i+2, out.Error)
		}
	}
	if got, out := c.post("campaignBudgets:mutate", ops(budget(camps[1], "300000000"))); got != 400 || out.reason() != "campaignBudgetError:BUDGET_CHANGE_LIMIT_EXCEEDED" {
		t.Fatalf("fifth budget change: %d %s", got, out.reason())
	}
	fc.Advance(time.Hour)
	if got, _ := c.post("campaignBudgets:mutate", ops(budget(camps[1], "300000000"))); got != 200 {
		t.Fatal("budget change an hour later refused")
	}
	many := make([]map[string]any, betaMaxOperations+1)
	for i := range many {
		many[i] = status("campaigns", camps[0].id, "ENABLED")
	}
	if got, out := c.post("campaigns:mutate", ops(many...)); got != 400 || !strings.HasPrefix(out.reason(), "requestError:TOO_MANY") {
		t.Fatalf("%d operations: %d %s", len(many), got, out.reason())
	}
}
