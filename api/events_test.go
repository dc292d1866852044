package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"mtk/api/idempotency"
	"mtk/ingest/events"
	"mtk/ingest/outbox"
	"mtk/internal/jsonx"
	"mtk/internal/testenv"
	"mtk/platform"
)

func (e *env) event(body map[string]any, headers ...string) response {
	e.t.Helper()
	return e.do("POST", "/v3/tracking/events", body, headers...)
}

func TestEventModes(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	now := e.clock.Now().Unix()

	t.Run("key mode, lead and timestamp", func(t *testing.T) {
		r := e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "lead": map[string]any{"email": "ana@x.com"},
			"timestamp": now - 60, "event_id": "e-1"}, bearer(a.key)...)
		body := r.JSON(t)
		if r.Status != 200 || body["success"] != true || body["event_id"] != "e-1" || body["timestamp"] != float64(now-60) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if id, _ := body["lead_id"].(string); len(id) < 6 || id[:5] != "lead_" {
			t.Fatalf("lead_id %v", body["lead_id"])
		}
	})
	t.Run("defaults: generated id, now, no lead", func(t *testing.T) {
		r := e.event(map[string]any{"config": map[string]any{"name": "page_view"}, "source": "fax"}, bearer(a.key)...)
		body := r.JSON(t)
		if r.Status != 200 || body["lead_id"] != nil || body["timestamp"] != float64(now) || body["event_id"].(string)[:4] != "evt_" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var source string
		e.drain()
		if err := e.ch.QueryRow(context.Background(), "SELECT source FROM events WHERE event_id = ?", body["event_id"]).Scan(&source); err != nil || source != "api" {
			t.Fatalf("stored source %q, %v", source, err)
		}
	})
	t.Run("public mode by domain, v3 preferred", func(t *testing.T) {
		r := e.event(map[string]any{"domain": "https://ACME.example/page", "config": map[string]any{"name": "PageView"}})
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var ctr string
		e.drain()
		if err := e.ch.QueryRow(context.Background(), "SELECT container_id FROM events WHERE event_id = ?", r.JSON(t)["event_id"]).Scan(&ctr); err != nil || ctr != a.v3.ID {
			t.Fatalf("container %q, want the v3 %s (%v)", ctr, a.v3.ID, err)
		}
		if r := e.do("POST", "/v2/public/tracking/events", map[string]any{"domain": "acme.example", "config": map[string]any{"name": "x"}}); r.Status != 200 {
			t.Fatalf("legacy public route: %d %s", r.Status, r.Body)
		}
	})
	t.Run("container route", func(t *testing.T) {
		r := e.do("POST", "/v3/tracking/containers/"+*a.v3.TrackingCode+"/events", map[string]any{"config": map[string]any{"name": "x"}}, bearer(a.key)...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantError(t, e.do("POST", "/v3/tracking/containers/ctr_unknown/events", map[string]any{"config": map[string]any{"name": "x"}}, bearer(a.key)...),
			404, "not_found_error", "resource_not_found")
		wantError(t, e.do("POST", "/v3/tracking/containers/"+a.v3.ID+"/events", map[string]any{"config": map[string]any{"name": "x"}}),
			401, "authentication_error", "invalid_api_key")
	})
	// The key mode takes the container of the body's domain, else the workspace's first (v3).
	t.Run("key mode with several containers", func(t *testing.T) {
		b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
		e.clock.Advance(time.Minute) // created after b's containers
		other, err := e.store.Containers.CreateContainer(context.Background(), platform.ContainerInput{ProjectID: b.project.ID, Domain: "other.example"})
		if err != nil {
			t.Fatal(err)
		}
		for domain, want := range map[string]string{"other.example": other.ID, "": b.v3.ID, "unknown.example": b.v3.ID} {
			r := e.event(map[string]any{"config": map[string]any{"name": "x"}, "domain": domain}, bearer(b.key)...)
			var ctr string
			e.drain()
			if err := e.ch.QueryRow(context.Background(), "SELECT container_id FROM events WHERE event_id = ?", r.JSON(t)["event_id"]).Scan(&ctr); err != nil || ctr != want {
				t.Fatalf("domain %q: container %q, want %s (%v)", domain, ctr, want, err)
			}
		}
	})
}

func TestEventErrors(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	now := e.clock.Now().Unix()
	ok := map[string]any{"domain": "acme.example", "config": map[string]any{"name": "x"}}
	for _, tc := range []struct {
		name    string
		body    any
		headers []string
		status  int
		typ     string
		code    string
	}{
		{"public without domain", map[string]any{"config": map[string]any{"name": "x"}}, nil, 400, "validation_error", "missing_parameter"},
		{"foreign domain", map[string]any{"domain": "evil.example", "config": map[string]any{"name": "x"}}, nil, 403, "authorization_error", "access_denied"},
		{"foreign origin", ok, []string{"Origin", "https://evil.example"}, 403, "authorization_error", "access_denied"},
		{"bad key", ok, bearer("mtk_live_" + "x"), 401, "authentication_error", "invalid_api_key"},
		{"read-only key", ok, bearer(a.readOnly), 403, "authorization_error", "insufficient_scope"},
		{"malformed JSON", `{"config":`, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"no name", map[string]any{"config": map[string]any{}}, bearer(a.key), 400, "validation_error", "missing_parameter"},
		{"alpha without name", map[string]any{"config": map[string]any{"name": "x", "alpha": map[string]any{}}}, bearer(a.key), 400, "validation_error", "missing_parameter"},
		{"absurd timestamp", map[string]any{"config": map[string]any{"name": "x"}, "timestamp": 1}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"future timestamp", map[string]any{"config": map[string]any{"name": "x"}, "timestamp": now + 3600}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"string timestamp", map[string]any{"config": map[string]any{"name": "x"}, "timestamp": "now"}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"bad email", map[string]any{"config": map[string]any{"name": "x"}, "lead": map[string]any{"email": "nobody"}}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"negative value", map[string]any{"config": map[string]any{"name": "x"}, "value": -1}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"bad currency", map[string]any{"config": map[string]any{"name": "x"}, "currency": "reais"}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"bad sourceKey", map[string]any{"config": map[string]any{"name": "x", "alpha": map[string]any{"name": "Lead", "sourceKey": "tv"}}}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"long utm", map[string]any{"config": map[string]any{"name": "x"}, "utm": map[string]any{"utm_content": strings.Repeat("c", 501)}},
			bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"properties not an object", map[string]any{"config": map[string]any{"name": "x"}, "properties": []int{1}}, bearer(a.key), 400, "validation_error", "invalid_parameter"},
		{"several wrong types", map[string]any{"config": map[string]any{"name": 5}, "value": "10", "cookies": map[string]any{"_fbp": 1}},
			bearer(a.key), 400, "validation_error", "invalid_parameter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errObj := wantError(t, e.do("POST", "/v3/tracking/events", tc.body, tc.headers...), tc.status, tc.typ, tc.code)
			if want := "[config.name: expected a string, got number 5 cookies._fbp: expected a string, got number 1 value: expected an integer, got string]"; tc.name == "several wrong types" && fmt.Sprint(errObj["details"]) != want {
				t.Fatalf("details %v, want %s", errObj["details"], want)
			}
		})
	}
}

func TestEventCORS(t *testing.T) {
	e := newEnv(t)
	e.newTrackingTenant("acme", "act_111", "acme.example")
	for _, path := range []string{"/v3/tracking/events", "/v2/public/tracking/events"} {
		r := e.do("OPTIONS", path, nil, "Origin", "https://acme.example", "Access-Control-Request-Method", "POST")
		if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != "https://acme.example" {
			t.Fatalf("%s preflight: %d %v", path, r.Status, r.Header)
		}
		r = e.do("OPTIONS", path, nil, "Origin", "https://evil.example")
		if r.Status != 403 || r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("%s foreign preflight: %d %v", path, r.Status, r.Header)
		}
	}
	r := e.event(map[string]any{"domain": "acme.example", "config": map[string]any{"name": "x"}}, "Origin", "https://acme.example")
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "https://acme.example" {
		t.Fatalf("%d %v", r.Status, r.Header)
	}
}

func TestEventIdempotency(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	for _, tc := range []struct {
		name, path string
		headers    []string
	}{
		{"key", "/v3/tracking/events", bearer(a.key)},
		{"public", "/v3/tracking/events", nil},
		{"legacy", "/v2/public/tracking/events", nil},
		{"container", "/v3/tracking/containers/" + a.v3.ID + "/events", bearer(a.key)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"domain": "acme.example", "config": map[string]any{"name": "Lead"}, "lead": map[string]any{"email": tc.name + "@x.com"}}
			h := append([]string{"Idempotency-Key", "k-" + tc.name}, tc.headers...)
			first := e.do("POST", tc.path, body, h...)
			again := e.do("POST", tc.path, body, h...)
			if first.Status != 200 || again.Status != 200 || string(first.Body) != string(again.Body) || again.Header.Get("X-Idempotent-Replayed") != "true" {
				t.Fatalf("first %d %s, again %d %s %v", first.Status, first.Body, again.Status, again.Body, again.Header)
			}
			body["value"] = 5
			wantError(t, e.do("POST", tc.path, body, h...), 409, "conflict_error", "idempotency_conflict")
			var n uint64
			e.drain()
			if err := e.ch.QueryRow(context.Background(), "SELECT count() FROM events WHERE event_id = ?", first.JSON(t)["event_id"]).Scan(&n); err != nil || n != 1 {
				t.Fatalf("stored %d times (%v)", n, err)
			}
		})
	}
}

func TestConcurrentEventsOneLead(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	var wg sync.WaitGroup
	leads := make([]string, 64)
	for i := range leads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lead := map[string]any{"email": "Same@Person.com"}
			if i%3 == 0 {
				lead = map[string]any{"email": "same@person.com ", "phone": "+55 11 90000-0000"}
			}
			r := e.event(map[string]any{"config": map[string]any{"name": "x"}, "lead": lead, "event_id": fmt.Sprint("c", i)}, bearer(a.key)...)
			if r.Status != 200 {
				t.Errorf("%d %s", r.Status, r.Body)
				return
			}
			leads[i], _ = r.JSON(t)["lead_id"].(string)
		}()
	}
	wg.Wait()
	for _, l := range leads {
		if l == "" || l != leads[0] {
			t.Fatalf("leads %v", leads)
		}
	}
	if n := e.pgCount(t, "SELECT count(*) FROM leads WHERE project_id = $1 AND merged_into IS NULL", a.project.ID); n != 1 {
		t.Fatalf("%d leads", n)
	}
}

// Attributed events count in the attribution metrics of their ad; the others only in events.
func TestEventAttributionThroughQuery(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	send := func(body map[string]any) {
		t.Helper()
		if r := e.event(body, bearer(a.key)...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	url := "https://acme.example/p?utm_campaign=Spring+Sale%7C900&utm_medium=Broad%7C901&utm_content=Video+1%7C902"
	send(map[string]any{"config": map[string]any{"name": "page_view"}, "page": map[string]any{"url": url}})
	send(map[string]any{"config": map[string]any{"name": "PageView"}, "utm": attributedUTM})
	send(map[string]any{"config": map[string]any{"name": "x", "alpha": map[string]any{"name": "InitiateCheckout"}}, "cookies": map[string]string{"utm_campaign": "Spring Sale|900"}})
	send(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM, "lead": map[string]any{"phone": "11 99999 0000"}})
	send(map[string]any{"config": map[string]any{"name": "Lead"}, "lead": map[string]any{"phone": "11 99999 0001"}}) // no UTM
	send(map[string]any{"config": map[string]any{"name": "PageView"}, "utm": map[string]string{"utm_campaign": "Unknown|1"}})
	e.drain()
	r := e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"page_views", "leads", "initiate_checkout"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "campaign"}}, bearer(a.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, r.JSON(t)["data"], `[{"campaign_id":"900","campaign_name":"Spring Sale","initiate_checkout":1,"leads":1,"page_views":2,"source":"alpha_ads"}]`)
	var n uint64
	e.drain()
	if err := e.ch.QueryRow(context.Background(), "SELECT count() FROM events WHERE project_id = ?", a.project.ID).Scan(&n); err != nil || n != 6 {
		t.Fatalf("%d events stored (%v)", n, err)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM leads WHERE project_id = $1 AND utm_campaign = $2", a.project.ID, "Spring Sale|900"); n != 1 {
		t.Fatalf("the lead's UTM: %d", n)
	}
}

// While ClickHouse is down, events are still stored (in PostgreSQL's event outbox) and answered;
// once it is back, the drainer writes each of them exactly once.
func TestEventsWaitForClickHouse(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	broken := testenv.ClickHouse(t)
	if err := broken.Conn.Exec(context.Background(), "DROP TABLE events"); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"config": map[string]any{"name": "x", "alpha": map[string]any{"name": "Lead"}}, "lead": map[string]any{"email": "a@x.com"}}
	r := e.event(body, bearer(a.key)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM leads"); n != 1 {
		t.Fatalf("%d leads stored, want 1", n)
	}
	if _, err := events.NewDrainer(e.store.Pool(), broken.Conn, e.clock, nil).RunOnce(context.Background()); err == nil {
		t.Fatal("the drain into a ClickHouse without the events table succeeded")
	}
	if n := e.pgCount(t, "SELECT count(*) FROM event_outbox"); n != 1 {
		t.Fatalf("%d events wait after the failed drain, want 1", n)
	}
	e.drain()
	e.drain()
	var n uint64
	if err := e.ch.QueryRow(context.Background(), "SELECT count() FROM events WHERE event_id = ?", r.JSON(t)["event_id"]).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d copies stored (%v), want 1", n, err)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM event_outbox"); n != 0 {
		t.Fatalf("%d events still wait", n)
	}
}

// When PostgreSQL refuses the batch, the event is answered 503 with Retry-After and nothing of
// it is stored; the retry (same Idempotency-Key) is not a replay of the failure.
func TestEventStoreDownIs503(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	ctx := context.Background()
	if _, err := e.store.Pool().Exec(ctx, "ALTER TABLE event_outbox RENAME TO event_outbox_away"); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"config": map[string]any{"name": "x", "alpha": map[string]any{"name": "Lead"}}, "lead": map[string]any{"email": "a@x.com"}}
	r := e.event(body, append(bearer(a.key), "Idempotency-Key", "k1")...)
	wantError(t, r, 503, "api_error", "service_unavailable")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After: %v", r.Header)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM conversion_outbox") + e.pgCount(t, "SELECT count(*) FROM leads"); n != 0 {
		t.Fatalf("%d conversions and leads stored for an event not stored", n)
	}
	if _, err := e.store.Pool().Exec(ctx, "ALTER TABLE event_outbox_away RENAME TO event_outbox"); err != nil {
		t.Fatal(err)
	}
	if r := e.event(body, append(bearer(a.key), "Idempotency-Key", "k1")...); r.Status != 200 || r.Header.Get("X-Idempotent-Replayed") != "" {
		t.Fatalf("retry: %d %s", r.Status, r.Body)
	}
}

// The outboxes' bounds are counted exactly at the edge, in the storing transaction: with room for
// 4 events, 10 sent at once store 4 and refuse 6 with 503 and Retry-After; the drain makes room
// at once (no recount to wait for), and a fact bound refuses an attributed page view whose fact
// and business row would pass it while events that count nowhere (no row in the fact outbox)
// still pass.
func TestOutboxBoundsAreExact(t *testing.T) {
	e := newEnv(t)
	e.eventsConfig = events.Config{Bounds: outbox.Bounds{Events: 4, Facts: 2}}
	e.rebuild()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	plain := map[string]any{"config": map[string]any{"name": "x"}}
	var wg sync.WaitGroup
	statuses := make([]int, 10)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.event(plain, bearer(a.key)...)
			if r.Status == 503 && r.Header.Get("Retry-After") == "" {
				t.Errorf("503 without Retry-After: %v", r.Header)
			}
			statuses[i] = r.Status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	if count[200] != 4 || count[503] != 6 || e.pgCount(t, "SELECT count(*) FROM event_outbox") != 4 {
		t.Fatalf("statuses %v, %d rows stored; want 4 stored, 6 refused", count,
			e.pgCount(t, "SELECT count(*) FROM event_outbox"))
	}
	wantError(t, e.event(plain, bearer(a.key)...), 503, "api_error", "service_unavailable")
	e.drain()
	attributed := map[string]any{"utm": attributedUTM, "config": map[string]any{"name": "PageView"}}
	if r := e.event(attributed, bearer(a.key)...); r.Status != 200 {
		t.Fatalf("after the drain: %d %s", r.Status, r.Body)
	}
	wantError(t, e.event(attributed, bearer(a.key)...), 503, "api_error", "service_unavailable")
	if r := e.event(plain, bearer(a.key)...); r.Status != 200 {
		t.Fatalf("an event that counts nowhere, fact outbox full: %d %s", r.Status, r.Body)
	}
}

// An event_id identifies an event within its project: a repeat, sequential or concurrent, with
// or without an Idempotency-Key, is answered with the first event's id, lead and timestamp, and
// neither the event, its fact nor its conversion is stored twice.
func TestRepeatedEventIDIsStoredOnce(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	if err := e.store.Containers.LinkPixel(context.Background(), a.v3.ID, platform.LinkedPixel{Source: platform.KindAlpha, ID: "987", Name: "px"}); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now().Unix()
	body := func(id, email string, ts int64) map[string]any {
		return map[string]any{"event_id": id, "timestamp": ts, "utm": attributedUTM, "lead": map[string]any{"email": email},
			"config": map[string]any{"name": "PageView", "alpha": map[string]any{"name": "PageView"}}}
	}
	first := e.event(body("dup-1", "ana@x.com", now-60), bearer(a.key)...).JSON(t)
	// A retry (another timestamp and e-mail, as a careless SDK may send) is the first event again.
	again := e.event(body("dup-1", "bia@x.com", now), bearer(a.key)...).JSON(t)
	if again["event_id"] != "dup-1" || again["lead_id"] != first["lead_id"] || again["timestamp"] != first["timestamp"] || first["lead_id"] == nil {
		t.Fatalf("first %v, again %v", first, again)
	}

	var wg sync.WaitGroup
	answers := make([]map[string]any, 50)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.event(body("dup-c", "carla@x.com", now-int64(i)), bearer(a.key)...)
			if r.Status != 200 {
				t.Errorf("%d %s", r.Status, r.Body)
				return
			}
			answers[i] = r.JSON(t)
		}()
	}
	wg.Wait()
	for _, ans := range answers {
		if ans == nil || ans["lead_id"] != answers[0]["lead_id"] || ans["timestamp"] != answers[0]["timestamp"] {
			t.Fatalf("concurrent answers differ: %v and %v", ans, answers[0])
		}
	}

	e.drain()
	for _, id := range []string{"dup-1", "dup-c"} {
		var n uint64
		if err := e.ch.QueryRow(context.Background(), "SELECT count() FROM events WHERE event_id = ?", id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%s stored %d times (%v)", id, n, err)
		}
		if n := e.pgCount(t, "SELECT count(*) FROM conversion_outbox WHERE event_id = $1", id); n != 1 {
			t.Fatalf("%s forwarded %d times", id, n)
		}
	}
	if got := e.chSum(t, a.project.ID, "page_views"); got != 2 {
		t.Fatalf("page_views %d, want 2", got)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM leads WHERE project_id = $1 AND email = 'bia@x.com'", a.project.ID); n != 0 {
		t.Fatal("a repeat's identity made a lead")
	}
}

// A retry after a crash that stored the event but never finished its idempotency record (here:
// the record is gone, so the retry runs again as a first call) finds the stored event: an event
// sent without event_id under an Idempotency-Key gets an id derived from the key.
func TestRetryAfterCrashStoresOnce(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	body := map[string]any{"config": map[string]any{"name": "Lead"}, "lead": map[string]any{"email": "x@y.com"}}
	h := append([]string{"Idempotency-Key", "crash-1"}, bearer(a.key)...)
	first := e.event(body, h...)
	if first.Status != 200 {
		t.Fatalf("%d %s", first.Status, first.Body)
	}
	if _, err := e.store.Pool().Exec(context.Background(), "DELETE FROM idempotency_records"); err != nil {
		t.Fatal(err)
	}
	again := e.event(body, h...)
	if again.Status != 200 || again.Header.Get("X-Idempotent-Replayed") != "" || string(again.Body) != string(first.Body) {
		t.Fatalf("retry: %d %s (replayed %q), first %s", again.Status, again.Body, again.Header.Get("X-Idempotent-Replayed"), first.Body)
	}
	e.drain()
	var n uint64
	if err := e.ch.QueryRow(context.Background(), "SELECT count() FROM events WHERE project_id = ?", a.project.ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("stored %d times (%v)", n, err)
	}
}

// An event's answer is stored in its batch's transaction: when the process dies after the commit
// and before the request's own bookkeeping (here the middleware never finishes its record), the
// retry with the same Idempotency-Key replays the answer at once, in the first call's name, and
// nothing is stored twice. (A batch that does not commit leaves the record running and the
// middleware removes it: TestEventStoreDownIs503's retry runs again.)
func TestEventAnswerCommitsWithItsBatch(t *testing.T) {
	e := newEnv(t)
	e.newTrackingTenant("acme", "act_111", "acme.example")
	ctx := context.Background()
	body := `{"domain":"acme.example","config":{"name":"Lead"},"lead":{"email":"ana@x.com"}}`
	tgt, err := e.events.PublicTarget(ctx, "acme.example")
	if err != nil {
		t.Fatal(err)
	}
	hash := sha256.Sum256([]byte(body))
	req := idempotency.Request{Scope: idempotency.ContainerScope(tgt.Container.ID), Key: "crash-1", Method: "POST",
		Path: "/v3/tracking/events", BodyHash: hash[:]}
	claim, err := idempotency.NewStore(e.store.Pool()).Begin(ctx, req, e.clock.Now(), idempotency.Lease)
	if err != nil || claim.Outcome != idempotency.Started {
		t.Fatalf("claim %+v: %v", claim, err)
	}
	// The handler's work, up to its answer; then the process dies.
	var in events.Input
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	in.EventID = events.IdempotentEventID(req.Scope, req.Key)
	first, err := e.events.Track(ctx, tgt, in, events.Meta{Receipt: idempotency.NewReceipt(claim, "req_first", jsonx.Marshal)}, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want, err := jsonx.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	r := e.do("POST", "/v3/tracking/events", body, "Idempotency-Key", "crash-1")
	if r.Status != 200 || r.Header.Get("X-Idempotent-Replayed") != "true" || r.Header.Get("Original-Request") != "req_first" ||
		string(r.Body) != string(want) {
		t.Fatalf("retry: %d %v %s, want the replay of %s", r.Status, r.Header, r.Body, want)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM event_outbox"); n != 1 {
		t.Fatalf("%d events stored, want 1", n)
	}
}

// An event_id identifies an event within its project and name (as Meta's event_name +
// event_id): a public call that sends a PageView with the id of the tenant's coming keyed
// Purchase first does not suppress the Purchase; a repeat of the Purchase is still the first.
func TestEventIDIsPerName(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	if err := e.store.Containers.LinkPixel(context.Background(), a.v3.ID, platform.LinkedPixel{Source: platform.KindAlpha, ID: "987", Name: "px"}); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now().Unix()
	squat := e.event(map[string]any{"domain": "acme.example", "event_id": "ord-77", "timestamp": now - 120,
		"config": map[string]any{"name": "PageView", "alpha": map[string]any{"name": "PageView"}}, "lead": map[string]any{"email": "squatter@x.com"}})
	if squat.Status != 200 {
		t.Fatalf("public call: %d %s", squat.Status, squat.Body)
	}
	purchase := func(email string, ts int64) map[string]any {
		return map[string]any{"event_id": "ord-77", "timestamp": ts, "value": 12990, "currency": "BRL", "lead": map[string]any{"email": email},
			"config": map[string]any{"name": "Purchase", "alpha": map[string]any{"name": "Purchase"}}}
	}
	first := e.event(purchase("buyer@x.com", now-60), bearer(a.key)...).JSON(t)
	if first["lead_id"] == nil || first["lead_id"] == squat.JSON(t)["lead_id"] || first["timestamp"] != float64(now-60) {
		t.Fatalf("the keyed Purchase was answered as the public PageView: %v (public: %s)", first, squat.Body)
	}
	again := e.event(purchase("other@x.com", now), bearer(a.key)...).JSON(t)
	if again["event_id"] != "ord-77" || again["lead_id"] != first["lead_id"] || again["timestamp"] != first["timestamp"] {
		t.Fatalf("a repeat of the Purchase: %v, first %v", again, first)
	}
	e.drain()
	rows, err := e.ch.Query(context.Background(), "SELECT name FROM events WHERE project_id = ? AND event_id = 'ord-77' ORDER BY name", a.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if fmt.Sprint(names) != "[PageView Purchase]" {
		t.Fatalf("stored %v, want each name once", names)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM conversion_outbox WHERE event_id = 'ord-77'"); n != 2 {
		t.Fatalf("%d conversions queued, want the PageView's and the Purchase's", n)
	}
}
