package adsim

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

type alphaPageBody struct {
	Data   []map[string]any `json:"data"`
	Paging struct {
		Cursors struct{ After string } `json:"cursors"`
		Next    string                 `json:"next"`
	} `json:"paging"`
	Error *struct {
		Message      string `json:"message"`
		Type         string `json:"type"`
		Code         int    `json:"code"`
		ErrorSubcode int    `json:"error_subcode"`
		FbtraceID    string `json:"fbtrace_id"`
	} `json:"error"`
}

// alphaAll follows paging.next from url and returns every row.
func alphaAll(t *testing.T, url string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for pages := 0; url != ""; pages++ {
		var p alphaPageBody
		if resp := call(t, "GET", url, nil, nil, &p); resp.StatusCode != 200 || p.Error != nil {
			t.Fatalf("GET %s: %d %+v", url, resp.StatusCode, p.Error)
		}
		rows = append(rows, p.Data...)
		url = p.Paging.Next
		if pages > 10000 {
			t.Fatal("paging does not end")
		}
	}
	return rows
}

func TestAlphaListPagination(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Alpha)
	objs, _ := s.Objects(Alpha, acct.ID)
	for _, edge := range []struct {
		name  string
		level Level
	}{{"campaigns", LevelCampaign}, {"adsets", LevelAdSet}, {"ads", LevelAd}} {
		for _, limit := range []int{1, 2, 5, 100} {
			rows := alphaAll(t, fmt.Sprintf("%s%s/%s?fields=id,name,status,effective_status,created_time&limit=%d&access_token=%s",
				srv.URL, acct.BasePath, edge.name, limit, acct.AccessToken))
			var want, got []string
			for _, o := range objs {
				if o.Level == edge.level {
					want = append(want, o.ID)
				}
			}
			for _, r := range rows {
				got = append(got, r["id"].(string))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s limit %d: got %v, want %v", edge.name, limit, got, want)
			}
		}
	}
}

func TestAlphaInsights(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Alpha)
	base := srv.URL + acct.BasePath + "/insights?access_token=" + acct.AccessToken +
		"&fields=ad_id,adset_id,campaign_id,spend,impressions,clicks,reach,actions,video_play_actions,video_p75_watched_actions" +
		"&level=ad&time_range=" + url.QueryEscape(`{"since":"2024-03-10","until":"2024-03-15"}`)
	daily := alphaAll(t, base+"&time_increment=1&limit=7")
	hourly := alphaAll(t, base+"&time_increment=1&breakdowns="+alphaHourly+"&limit=50")
	if len(daily) == 0 || len(hourly) <= len(daily) {
		t.Fatalf("%d daily rows, %d hourly rows", len(daily), len(hourly))
	}
	// One page with everything equals the pages put together.
	if all := alphaAll(t, base+"&time_increment=1&limit=5000"); fmt.Sprint(all) != fmt.Sprint(daily) {
		t.Fatal("paged rows differ from one big page")
	}
	type key struct{ ad, day string }
	sum := func(rows []map[string]any, withReach bool) map[key][6]int64 {
		out := map[key][6]int64{}
		for _, r := range rows {
			k := key{r["ad_id"].(string), r["date_start"].(string)}
			v := out[k]
			spend, err := parseMajor(r["spend"].(string), 2)
			if err != nil {
				t.Fatal(err)
			}
			v[0] += spend
			v[1] += atoi(t, r["impressions"])
			v[2] += atoi(t, r["clicks"])
			v[3] += actionValue(t, r["actions"])
			v[4] += actionValue(t, r["video_play_actions"])
			v[5] += actionValue(t, r["video_p75_watched_actions"])
			out[k] = v
			if _, ok := r["reach"]; ok != withReach {
				t.Fatalf("reach present %v in %v", ok, r)
			}
		}
		return out
	}
	if d, h := sum(daily, true), sum(hourly, false); fmt.Sprint(d) != fmt.Sprint(h) {
		t.Fatal("hourly rows do not sum to daily rows")
	}
	h := hourly[0][alphaHourly].(string)
	if !strings.HasSuffix(h, ":59:59") || len(h) != len("00:00:00 - 00:59:59") {
		t.Fatalf("hourly bucket %q", h)
	}
	// Days that are final equal the truth; spend is "major.minor".
	tr := truth(t, s, TruthQuery{Network: Alpha, Account: acct.ID, Since: "2024-03-10", Until: "2024-03-13"})
	got := sum(daily, true)
	for _, r := range tr.Rows {
		if v := got[key{r.EntityID, r.Date}]; v[0] != r.Spend || v[1] != r.Impressions || v[3] != r.VideoViews3s {
			t.Fatalf("%s %s: API %v, truth %+v", r.EntityID, r.Date, v, r.Metrics)
		}
	}
}

func atoi(t *testing.T, v any) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(v.(string), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func actionValue(t *testing.T, v any) int64 {
	t.Helper()
	if v == nil {
		return 0
	}
	list := v.([]any)
	a := list[0].(map[string]any)
	if a["action_type"] != "video_view" {
		t.Fatalf("action %v", a)
	}
	return atoi(t, a["value"])
}

func TestAlphaWrites(t *testing.T) {
	s, fc := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Alpha)
	a := s.account(Alpha, acct.ID)
	var daily, lifetime *object
	for _, o := range a.owners {
		if o.budget == BudgetDaily && daily == nil {
			daily = o
		}
		if o.budget == BudgetLifetime && lifetime == nil {
			lifetime = o
		}
	}
	ad := a.ofLevel(LevelAd)[0]
	other := firstAccount(t, s, Alpha)
	for _, x := range s.Accounts() {
		if x.Network == Alpha && x.ID != acct.ID {
			other = x
		}
	}
	post := func(id, form string) (int, alphaPageBody) {
		var out alphaPageBody
		resp := call(t, "POST", srv.URL+"/alpha/v19.0/"+id, map[string]string{
			"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer " + acct.AccessToken}, form, &out)
		return resp.StatusCode, out
	}
	cases := []struct {
		name      string
		id, form  string
		status    int
		code, sub int
	}{
		{"pause", ad.id, "status=PAUSED", 200, 0, 0},
		{"activate", ad.id, "status=ACTIVE", 200, 0, 0},
		{"bad status", ad.id, "status=DELETED", 400, 100, 0},
		{"budget on an ad", ad.id, "daily_budget=5000", 400, 100, 0},
		{"daily budget", daily.id, "daily_budget=12345", 200, 0, 0},
		{"zero budget", daily.id, "daily_budget=0", 400, 100, 0},
		{"negative budget", daily.id, "daily_budget=-5", 400, 100, 0},
		{"decimal budget", daily.id, "daily_budget=12.5", 400, 100, 0},
		{"lifetime on a daily owner", daily.id, "lifetime_budget=500000", 400, 100, 0},
		{"unknown object", "999", "status=PAUSED", 400, 100, 33},
		{"another account's object", s.account(Alpha, other.ID).objects[0].id, "status=PAUSED", 400, 100, 33},
		{"unsupported field", ad.id, "name=x", 400, 100, 0},
	}
	if lifetime != nil {
		cases = append(cases, struct {
			name      string
			id, form  string
			status    int
			code, sub int
		}{"lifetime budget", lifetime.id, "lifetime_budget=900000", 200, 0, 0})
	}
	for _, c := range cases {
		status, out := post(c.id, c.form)
		if status != c.status || (c.code != 0 && (out.Error == nil || out.Error.Code != c.code || out.Error.ErrorSubcode != c.sub)) {
			t.Errorf("%s: %d %+v", c.name, status, out.Error)
		}
	}
	if got := s.objects[daily.id].budgetAt(s.now()); got != 12345 {
		t.Fatalf("budget after write: %d", got)
	}
	// Four budget changes an hour per object; the fifth is refused until the hour has passed.
	for i := range 3 {
		if status, out := post(daily.id, fmt.Sprintf("daily_budget=%d", 20000+i)); status != 200 {
			t.Fatalf("change %d: %+v", i+2, out.Error)
		}
	}
	if status, out := post(daily.id, "daily_budget=30000"); status != 400 || out.Error.ErrorSubcode != 1885621 {
		t.Fatalf("fifth change in an hour: %d %+v", status, out.Error)
	}
	fc.Advance(61 * time.Minute)
	if status, out := post(daily.id, "daily_budget=30000"); status != 200 {
		t.Fatalf("a change an hour later: %+v", out.Error)
	}
	// A JSON body works too.
	resp := call(t, "POST", srv.URL+"/alpha/v19.0/"+ad.id+"?access_token="+acct.AccessToken, nil, map[string]any{"status": "PAUSED"}, nil)
	if resp.StatusCode != 200 || s.objects[ad.id].statusAt(s.now()) != Paused {
		t.Fatalf("JSON write: %d", resp.StatusCode)
	}
}

func TestAlphaBatch(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Alpha)
	ads := s.account(Alpha, acct.ID).ofLevel(LevelAd)
	var items []map[string]string
	for _, ad := range ads[:3] {
		items = append(items, map[string]string{"method": "POST", "relative_url": ad.id, "body": "status=PAUSED"})
	}
	items = append(items, map[string]string{"method": "POST", "relative_url": "v19.0/" + ads[0].id, "body": "daily_budget=100"})
	items = append(items, map[string]string{"method": "GET", "relative_url": ads[1].id + "?fields=status"})
	var out []struct {
		Code int    `json:"code"`
		Body string `json:"body"`
	}
	form := url.Values{"access_token": {acct.AccessToken}, "batch": {toJSON(t, items)}}
	call(t, "POST", srv.URL+"/alpha/v19.0/", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode(), &out)
	want := []int{200, 200, 200, 400, 200}
	for i, o := range out {
		if o.Code != want[i] {
			t.Errorf("item %d: %d %s", i, o.Code, o.Body)
		}
	}
	if len(out) != 5 || !strings.Contains(out[4].Body, `"PAUSED"`) {
		t.Fatalf("batch answer %+v", out)
	}
	for len(items) <= alphaMaxBatch {
		items = append(items, items[0])
	}
	var e alphaPageBody
	form.Set("batch", toJSON(t, items))
	if resp := call(t, "POST", srv.URL+"/alpha/v19.0/", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode(), &e); resp.StatusCode != 400 || e.Error == nil || e.Error.Code != 100 {
		t.Fatalf("batch of %d: %d %+v", len(items), resp.StatusCode, e.Error)
	}
}

func TestAlphaAuth(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	acct := firstAccount(t, s, Alpha)
	beta := firstAccount(t, s, Beta)
	for _, c := range []struct {
		name, url string
		headers   map[string]string
		status    int
		code      int
	}{
		{"no token", acct.BasePath + "/campaigns", nil, 400, 190},
		{"unknown token", acct.BasePath + "/campaigns?access_token=nope", nil, 400, 190},
		{"another network's token", acct.BasePath + "/campaigns?access_token=" + beta.AccessToken, nil, 400, 190},
		{"bearer", acct.BasePath + "/campaigns", map[string]string{"Authorization": "Bearer " + acct.AccessToken}, 200, 0},
		{"another account", "/alpha/v19.0/act_1/campaigns?access_token=" + acct.AccessToken, nil, 400, 100},
		{"unknown field", acct.BasePath + "/campaigns?fields=id,foo&access_token=" + acct.AccessToken, nil, 400, 100},
	} {
		var out alphaPageBody
		resp := call(t, "GET", srv.URL+c.url, c.headers, nil, &out)
		if resp.StatusCode != c.status || (c.code != 0 && (out.Error == nil || out.Error.Code != c.code || out.Error.FbtraceID == "")) {
			t.Errorf("%s: %d %+v", c.name, resp.StatusCode, out.Error)
		}
	}
}
