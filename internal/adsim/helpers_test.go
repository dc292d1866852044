package adsim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"mtk/internal/clock"
)

// testNow is the fake clock's start in every test: a Friday afternoon in UTC.
var testNow = time.Date(2024, 3, 15, 14, 30, 0, 0, time.UTC)

// newSim starts a simulator on a fake clock at testNow with 30 days of history; mod adjusts the
// config first.
func newSim(t *testing.T, mod func(*Config)) (*Sim, *clock.Fake) {
	t.Helper()
	fc := clock.NewFake(testNow)
	cfg := Config{Seed: 42, Clock: fc, Days: 30}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, fc
}

// serve runs s on a test server closed at the end of the test.
func serve(t *testing.T, s *Sim) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// firstAccount returns the first account of network n.
func firstAccount(t *testing.T, s *Sim, n Network) AccountInfo {
	t.Helper()
	for _, a := range s.Accounts() {
		if a.Network == n {
			return a
		}
	}
	t.Fatalf("no %s account", n)
	return AccountInfo{}
}

// call does one request and decodes a JSON answer into out (when not nil); it returns the
// response, whose body is already read.
func call(t *testing.T, method, url string, headers map[string]string, body any, out any) *http.Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
		if headers == nil {
			headers = map[string]string{}
		}
		if _, ok := headers["Content-Type"]; !ok {
			headers["Content-Type"] = "application/json"
		}
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, url, resp.StatusCode, raw, err)
		}
	}
	return resp
}

// truth is s.Truth that fails the test on error.
func truth(t *testing.T, s *Sim, q TruthQuery) Truth {
	t.Helper()
	tr, err := s.Truth(q)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// bucket identifies one truth row.
type bucket struct {
	entity, date string
	hour         int
}

// byBucket indexes truth rows (hour -1 when absent).
func byBucket(rows []TruthRow) map[bucket]Metrics {
	out := map[bucket]Metrics{}
	for _, r := range rows {
		h := -1
		if r.Hour != nil {
			h = *r.Hour
		}
		out[bucket{r.EntityID, r.Date, h}] = r.Metrics
	}
	return out
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
