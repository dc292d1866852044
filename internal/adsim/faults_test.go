package adsim

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// netRequest is one cheap read of each network, for the tests of the shared request path.
type netRequest struct {
	network Network
	method  string
	url     string
	headers map[string]string
	body    any
}

func netRequests(srvURL string, s *Sim) []netRequest {
	var out []netRequest
	for _, n := range Networks {
		var acct AccountInfo
		for _, a := range s.Accounts() {
			if a.Network == n {
				acct = a
				break
			}
		}
		switch n {
		case Alpha:
			out = append(out, netRequest{n, "GET", srvURL + acct.BasePath + "/campaigns?access_token=" + acct.AccessToken, nil, nil})
		case Beta:
			out = append(out, netRequest{n, "POST", srvURL + acct.BasePath + "/googleAds:search",
				map[string]string{"Authorization": "Bearer " + acct.AccessToken, "developer-token": acct.DeveloperToken},
				map[string]string{"query": "SELECT campaign.id FROM campaign"}})
		case Gamma:
			out = append(out, netRequest{n, "GET", srvURL + acct.BasePath + "/campaign/get/?advertiser_id=" + acct.ID,
				map[string]string{"Access-Token": acct.AccessToken}, nil})
		}
	}
	return out
}

func (nr netRequest) do(t *testing.T) (*http.Response, map[string]any) {
	t.Helper()
	var out map[string]any
	resp := call(t, nr.method, nr.url, nr.headers, nr.body, &out)
	return resp, out
}

// errorCode is the network-specific code of an error answer.
func errorCode(n Network, body map[string]any) any {
	switch n {
	case Alpha:
		return body["error"].(map[string]any)["code"]
	case Beta:
		return body["error"].(map[string]any)["status"]
	}
	return body["code"]
}

func TestQuota(t *testing.T) {
	s, fc := newSim(t, func(c *Config) { c.QuotaPerMinute = 2 })
	fc.Set(testNow.Add(20 * time.Second)) // 14:30:20, 40 s before the window ends
	srv := serve(t, s)
	want := map[Network]any{Alpha: float64(17), Beta: "RESOURCE_EXHAUSTED", Gamma: float64(gammaRateLimited)}
	for _, nr := range netRequests(srv.URL, s) {
		for i := range 2 {
			if resp, _ := nr.do(t); resp.StatusCode != 200 {
				t.Fatalf("%s request %d: %d", nr.network, i+1, resp.StatusCode)
			}
		}
		resp, body := nr.do(t)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "40" || errorCode(nr.network, body) != want[nr.network] {
			t.Errorf("%s over quota: %d Retry-After %q %v", nr.network, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	fc.Advance(40 * time.Second)
	for _, nr := range netRequests(srv.URL, s) {
		if resp, _ := nr.do(t); resp.StatusCode != 200 {
			t.Errorf("%s in the next window: %d", nr.network, resp.StatusCode)
		}
	}
	s.SetQuota(0)
	for range 5 {
		if resp, _ := netRequests(srv.URL, s)[0].do(t); resp.StatusCode != 200 {
			t.Fatal("quota off, still limited")
		}
	}
}

func TestInjectedServerErrors(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	want := map[Network]any{Alpha: float64(2), Beta: "UNAVAILABLE", Gamma: float64(gammaServerError)}
	for _, nr := range netRequests(srv.URL, s) {
		s.SetFaults(Faults{FailNext: 2, FailStatus: 503})
		for i := range 2 {
			resp, body := nr.do(t)
			if resp.StatusCode != 503 || errorCode(nr.network, body) != want[nr.network] {
				t.Errorf("%s failure %d: %d %v", nr.network, i+1, resp.StatusCode, body)
			}
		}
		if resp, _ := nr.do(t); resp.StatusCode != 200 {
			t.Errorf("%s after the failures: %d", nr.network, resp.StatusCode)
		}
	}
	// Faults for one network leave the others alone.
	s.SetFaults(Faults{Network: Beta, FailNext: 10})
	for _, nr := range netRequests(srv.URL, s) {
		if resp, _ := nr.do(t); (resp.StatusCode == 500) != (nr.network == Beta) {
			t.Errorf("%s with beta faults: %d", nr.network, resp.StatusCode)
		}
	}
	if f := s.Faults(); f.FailNext != 9 {
		t.Errorf("FailNext left: %d", f.FailNext)
	}
}

func TestFailRateIsDeterministic(t *testing.T) {
	pattern := func() string {
		s, _ := newSim(t, nil)
		srv := serve(t, s)
		s.SetFaults(Faults{FailRate: 300})
		nr := netRequests(srv.URL, s)[2]
		var b strings.Builder
		for range 60 {
			if resp, _ := nr.do(t); resp.StatusCode == 500 {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		return b.String()
	}
	p1, p2 := pattern(), pattern()
	if n := strings.Count(p1, "x"); p1 != p2 || n < 8 || n > 30 {
		t.Fatalf("fail patterns %s / %s", p1, p2)
	}
}

func TestTimeoutsAndLatency(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	nr := netRequests(srv.URL, s)[0]
	s.SetFaults(Faults{TimeoutNext: 1, Hold: 20 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", nr.url, nil)
	start := time.Now()
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("held request answered %d", resp.StatusCode)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the client waited %s", d)
	}
	if resp, _ := nr.do(t); resp.StatusCode != 200 {
		t.Fatalf("after the timeout: %d", resp.StatusCode)
	}
	// A client that waits out the hold gets a 504.
	s.SetFaults(Faults{TimeoutNext: 1, Hold: 50 * time.Millisecond})
	if resp, body := nr.do(t); resp.StatusCode != 504 || errorCode(Alpha, body) != float64(2) {
		t.Fatalf("held request: %d %v", resp.StatusCode, body)
	}
	s.SetFaults(Faults{Latency: 80 * time.Millisecond})
	start = time.Now()
	if resp, _ := nr.do(t); resp.StatusCode != 200 || time.Since(start) < 80*time.Millisecond {
		t.Fatalf("latency: %d after %s", resp.StatusCode, time.Since(start))
	}
	s.ClearFaults()
}

func TestAdminEndpoints(t *testing.T) {
	s, _ := newSim(t, nil)
	srv := serve(t, s)
	var accounts struct{ Accounts []AccountInfo }
	call(t, "GET", srv.URL+"/_admin/accounts", nil, nil, &accounts)
	if len(accounts.Accounts) != 6 || accounts.Accounts[0].AccessToken == "" {
		t.Fatalf("accounts %+v", accounts)
	}
	acct := firstAccount(t, s, Gamma)
	var tr Truth
	call(t, "GET", srv.URL+"/_admin/truth?network=gamma_ads&account="+acct.ID+"&level=campaign&granularity=hour&since=2024-03-14&until=2024-03-15", nil, nil, &tr)
	want := truth(t, s, TruthQuery{Network: Gamma, Account: acct.ID, Level: LevelCampaign, Granularity: GranularityHour, Since: "2024-03-14", Until: "2024-03-15"})
	if a, b := toJSON(t, tr), toJSON(t, want); a != b || len(tr.Rows) == 0 {
		t.Fatal("admin truth differs from Sim.Truth")
	}
	if resp := call(t, "GET", srv.URL+"/_admin/truth?network=gamma_ads&account=nope", nil, nil, nil); resp.StatusCode != 400 {
		t.Fatalf("truth of an unknown account: %d", resp.StatusCode)
	}
	var objs struct{ Objects []ObjectInfo }
	call(t, "GET", srv.URL+"/_admin/objects?network=gamma_ads&account="+acct.ID, nil, nil, &objs)
	if len(objs.Objects) != 3+6+12 {
		t.Fatalf("%d objects", len(objs.Objects))
	}
	var f faultsWire
	call(t, "POST", srv.URL+"/_admin/faults", nil, map[string]any{"network": "alpha_ads", "fail_next": 3, "fail_status": 502, "latency_ms": 5}, &f)
	if g := s.Faults(); g.FailNext != 3 || g.FailStatus != 502 || g.Latency != 5*time.Millisecond || f.FailNext != 3 {
		t.Fatalf("faults %+v / %+v", g, f)
	}
	call(t, "DELETE", srv.URL+"/_admin/faults", nil, nil, &f)
	if s.Faults().FailNext != 0 {
		t.Fatal("faults not cleared")
	}
	if resp := call(t, "POST", srv.URL+"/_admin/faults", nil, map[string]any{"fail_status": 404}, nil); resp.StatusCode != 400 {
		t.Fatal("a 404 fault accepted")
	}
	var q map[string]int
	call(t, "POST", srv.URL+"/_admin/quota", nil, map[string]int{"per_minute": 7}, &q)
	if s.Quota() != 7 || q["per_minute"] != 7 {
		t.Fatalf("quota %v", q)
	}
	var clk struct {
		Now  string
		Fake bool
	}
	call(t, "POST", srv.URL+"/_admin/clock", nil, map[string]string{"advance": "90m"}, &clk)
	if !clk.Fake || clk.Now != "2024-03-15T16:00:00Z" || !s.Clock().Now().Equal(testNow.Add(90*time.Minute)) {
		t.Fatalf("clock %+v", clk)
	}
	call(t, "POST", srv.URL+"/_admin/clock", nil, map[string]string{"set": "2024-03-20T00:00:00Z"}, &clk)
	if clk.Now != "2024-03-20T00:00:00Z" {
		t.Fatalf("clock %+v", clk)
	}
	real, err := New(Config{Seed: 1, Days: 3})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := serve(t, real)
	var e map[string]string
	if resp := call(t, "POST", srv2.URL+"/_admin/clock", nil, map[string]string{"advance": "1h"}, &e); resp.StatusCode != 409 {
		t.Fatalf("moving the real clock: %d", resp.StatusCode)
	}
	raw, _ := json.Marshal(e)
	if !strings.Contains(string(raw), "fake-clock") {
		t.Fatalf("error %s", raw)
	}
}
