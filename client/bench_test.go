package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"mtk/client"
)

// The client's own cost per call, next to a hand-built request on the same transport, against a
// server that answers at once: what the benchmarks' numbers gain by going through the client.
//
//	go test -run '^$' -bench . -benchmem ./client

const eventAnswer = `{"success":true,"event_id":"evt_1","lead_id":"lead_1","timestamp":1795310019}`

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(eventAnswer)) //nolint:errcheck
	}))
	b.Cleanup(srv.Close)
	return srv
}

func benchEvent() *client.Event {
	return &client.Event{Config: client.EventConfig{Name: "Lead"}, EventID: "b-1-1",
		Lead: &client.Lead{Email: "p1-1@bench.example", Phone: "+55 11 90001-0001"},
		Page: &client.Page{URL: "https://bench.example/p?utm_source=alpha"}, Cookies: map[string]string{"_fbp": "fb.1.1.1"}}
}

func BenchmarkTrackEventClient(b *testing.B) {
	srv := benchServer(b)
	c := client.New(srv.URL, client.WithAPIKey("mtk_live_x"), client.WithMaxRetries(0),
		client.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}))
	ev := benchEvent()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.TrackEvent(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrackEventByHand(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{Transport: http.DefaultTransport}
	body, _ := json.Marshal(benchEvent())
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest("POST", srv.URL+"/v3/tracking/events", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer mtk_live_x")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck
		resp.Body.Close()
	}
}
