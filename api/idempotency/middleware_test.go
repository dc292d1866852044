package idempotency

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

func TestReplay(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		wantStatus int
	}{
		{"success", "/v3/things", http.StatusCreated},
		{"client error", "/v3/invalid", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := newTestApp(t, nil)
			first := ta.call(t, "POST", tt.path, `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1")
			if first.status != tt.wantStatus || first.replayed != "" || first.requestID != "req_1" || first.original != "" {
				t.Fatalf("first call: %+v", first)
			}
			if tt.wantStatus >= 400 && !strings.Contains(first.body, `"request_id":"req_1"`) {
				t.Fatalf("error rendered by the middleware lost its request id: %s", first.body)
			}
			for i := 2; i <= 3; i++ {
				again := ta.call(t, "POST", tt.path, `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1")
				want := first
				want.replayed = "true"
				// The replay has its own request id and names the first call's, which an error
				// body's request_id holds.
				want.requestID, want.original = fmt.Sprintf("req_%d", i), "req_1"
				if again != want {
					t.Fatalf("call %d: got %+v, want %+v", i, again, want)
				}
			}
			if n := ta.runs.Load(); n != 1 {
				t.Fatalf("handler ran %d times, want 1", n)
			}
		})
	}
}

func TestChangedRequestConflicts(t *testing.T) {
	ta := newTestApp(t, nil)
	if r := ta.call(t, "POST", "/v3/things?x=1", `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1"); r.status != http.StatusCreated {
		t.Fatalf("first call: %+v", r)
	}
	tests := []struct {
		name, method, path, body string
	}{
		{"other body", "POST", "/v3/things?x=1", `{"a":2}`},
		{"same JSON, other spacing", "POST", "/v3/things?x=1", `{"a": 1}`},
		{"other query string", "POST", "/v3/things?x=2", `{"a":1}`},
		{"other path", "POST", "/v3/invalid?x=1", `{"a":1}`},
		{"other method", "PUT", "/v3/things?x=1", `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantConflict(t, ta.call(t, tt.method, tt.path, tt.body, "X-Key", "key_a", HeaderKey, "k1"))
		})
	}
	if n := ta.runs.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
}

func TestCallWhileFirstRuns(t *testing.T) {
	ta := newTestApp(t, nil)
	done := make(chan result)
	go func() {
		r, err := ta.do("POST", "/v3/slow", "{}", "X-Key", "key_a", HeaderKey, "k1")
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	<-ta.entered
	r := ta.call(t, "POST", "/v3/slow", "{}", "X-Key", "key_a", HeaderKey, "k1")
	wantConflict(t, r)
	if r.retryAfter != "1" { // what is left of the first call's lease, in whole seconds
		t.Fatalf("Retry-After %q, want 1", r.retryAfter)
	}
	close(ta.release)
	if first := <-done; first.status != http.StatusOK || first.body != "slow done" {
		t.Fatalf("first call: %+v", first)
	}
	if r := ta.call(t, "POST", "/v3/slow", "{}", "X-Key", "key_a", HeaderKey, "k1"); r.replayed != "true" || r.body != "slow done" {
		t.Fatalf("after the first call finished: %+v, want its replay", r)
	}
	if n := ta.runs.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
}

func TestSimultaneousFirstCalls(t *testing.T) {
	ta := newTestApp(t, nil)
	const calls = 20
	results := make([]result, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := ta.do("POST", "/v3/things", `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1")
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	if n := ta.runs.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
	var answered string
	for _, r := range results {
		switch r.status {
		case http.StatusConflict:
			wantConflict(t, r)
		case http.StatusCreated:
			if answered != "" && r.body != answered {
				t.Fatalf("two answers: %s and %s", answered, r.body)
			}
			answered = r.body
		default:
			t.Fatalf("unexpected answer %+v", r)
		}
	}
}

func TestServerErrorsAreNotStored(t *testing.T) {
	tests := []struct {
		name, path string
		wantStatus int
	}{
		{"handler error", "/v3/boom", http.StatusInternalServerError},
		{"5xx answer", "/v3/unavailable", http.StatusServiceUnavailable},
		{"panic", "/v3/panic", http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := newTestApp(t, nil)
			for i := 1; i <= 2; i++ {
				r := ta.call(t, "POST", tt.path, "{}", "X-Key", "key_a", HeaderKey, "k1")
				if r.status != tt.wantStatus || r.replayed != "" {
					t.Fatalf("call %d: %+v, want %d not replayed", i, r, tt.wantStatus)
				}
			}
			if n := ta.runs.Load(); n != 2 {
				t.Fatalf("handler ran %d times, want 2", n)
			}
			if n := ta.records(t); n != 0 {
				t.Fatalf("%d records kept", n)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	ta := newTestApp(t, nil)
	send := func() result {
		return ta.call(t, "POST", "/v3/things", `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1")
	}
	first := send()
	ta.clk.Advance(Window - time.Second)
	if r := send(); r.replayed != "true" || r.body != first.body {
		t.Fatalf("just before expiry: %+v, want a replay", r)
	}
	ta.clk.Advance(time.Second)
	again := send()
	if again.status != http.StatusCreated || again.replayed != "" || again.body == first.body {
		t.Fatalf("after 24 h: %+v, want a new run", again)
	}
	if r := send(); r.replayed != "true" || r.body != again.body {
		t.Fatalf("after the new run: %+v, want its replay", r)
	}
	if n := ta.runs.Load(); n != 2 {
		t.Fatalf("handler ran %d times, want 2", n)
	}
}

// A first call that began and never finished (its process died, renewing nothing) holds its key
// until its lease ends: a repeat meanwhile is 409 with Retry-After the lease's remaining seconds,
// and then runs.
func TestUnfinishedFirstCallLease(t *testing.T) {
	ta := newTestApp(t, nil)
	crashed := request("key:key_a", "k1", "POST", "/v3/things", `{"a":1}`)
	if _, err := ta.store.Begin(t.Context(), crashed, t0, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	ta.clk.Advance(time.Second / 2)
	r := ta.call(t, "POST", "/v3/things", `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1")
	wantConflict(t, r)
	if r.retryAfter != "3" {
		t.Fatalf("Retry-After %q with 2.5 s of the lease left, want 3", r.retryAfter)
	}
	ta.clk.Advance(2*time.Second + time.Second/2)
	r = ta.call(t, "POST", "/v3/things", `{"a":2}`, "X-Key", "key_a", HeaderKey, "k1")
	wantConflict(t, r)
	if r.retryAfter != "" {
		t.Fatalf("a changed request's conflict has Retry-After %q: waiting does not help it", r.retryAfter)
	}
	if r := ta.call(t, "POST", "/v3/things", `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1"); r.status != http.StatusCreated || r.replayed != "" {
		t.Fatalf("after the lease: %+v, want the call to run", r)
	}
	if r := ta.call(t, "POST", "/v3/things", `{"a":1}`, "X-Key", "key_a", HeaderKey, "k1"); r.replayed != "true" {
		t.Fatalf("after the takeover: %+v, want a replay", r)
	}
}

func TestScopes(t *testing.T) {
	scope := func(c *fiber.Ctx) (string, error) {
		if id := c.Get("X-Container"); id != "" {
			return ContainerScope(id), nil
		}
		return DefaultScope(c)
	}
	tests := []struct {
		name   string
		first  []string
		second []string
	}{
		{"two api keys", []string{"X-Key", "key_a"}, []string{"X-Key", "key_b"}},
		{"one user in two workspaces", []string{"X-User", "usr_1", "X-Workspace", "ws_1"}, []string{"X-User", "usr_1", "X-Workspace", "ws_2"}},
		{"two users", []string{"X-User", "usr_1", "X-Workspace", "ws_1"}, []string{"X-User", "usr_2", "X-Workspace", "ws_1"}},
		{"two containers", []string{"X-Container", "ctr_1"}, []string{"X-Container", "ctr_2"}},
		{"api key and container", []string{"X-Key", "key_a"}, []string{"X-Container", "ctr_1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := newTestApp(t, scope)
			send := func(who []string) result {
				return ta.call(t, "POST", "/v3/things", `{"a":1}`, append([]string{HeaderKey, "shared"}, who...)...)
			}
			a, b := send(tt.first), send(tt.second)
			if a.status != http.StatusCreated || b.status != http.StatusCreated || b.replayed != "" || a.body == b.body {
				t.Fatalf("first %+v, second %+v: want two runs", a, b)
			}
			if r := send(tt.first); r.body != a.body || r.replayed != "true" {
				t.Fatalf("first scope again: %+v, want its own replay", r)
			}
			if r := send(tt.second); r.body != b.body || r.replayed != "true" {
				t.Fatalf("second scope again: %+v, want its own replay", r)
			}
		})
	}
}

func TestKeyValue(t *testing.T) {
	tests := []struct {
		name       string
		values     []string
		wantStatus int
	}{
		{"255 characters", []string{strings.Repeat("k", 255)}, http.StatusCreated},
		{"printable punctuation and space", []string{"order 42/retry:~!"}, http.StatusCreated},
		{"empty", []string{""}, http.StatusBadRequest},
		{"256 characters", []string{strings.Repeat("k", 256)}, http.StatusBadRequest},
		{"not ASCII", []string{"clé"}, http.StatusBadRequest},
		{"tab", []string{"a\tb"}, http.StatusBadRequest},
		{"sent twice", []string{"k1", "k2"}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := newTestApp(t, nil)
			headers := []string{"X-Key", "key_a"}
			for _, v := range tt.values {
				headers = append(headers, HeaderKey, v)
			}
			r := ta.call(t, "POST", "/v3/things", "{}", headers...)
			if r.status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", r.status, r.body, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusBadRequest {
				if !strings.Contains(r.body, `"code":"invalid_parameter"`) || ta.runs.Load() != 0 || ta.records(t) != 0 {
					t.Fatalf("got %s, %d runs, %d records; want invalid_parameter and nothing run or stored",
						r.body, ta.runs.Load(), ta.records(t))
				}
			}
		})
	}
}

func TestRequestsOutsideIdempotency(t *testing.T) {
	tests := []struct {
		name, method string
		headers      []string
	}{
		{"write without a key", "POST", []string{"X-Key", "key_a"}},
		{"read with a key", "GET", []string{"X-Key", "key_a", HeaderKey, "k1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := newTestApp(t, nil)
			for i := 1; i <= 2; i++ {
				if r := ta.call(t, tt.method, "/v3/things", "{}", tt.headers...); r.status != http.StatusCreated || r.replayed != "" {
					t.Fatalf("call %d: %+v", i, r)
				}
			}
			if ta.runs.Load() != 2 || ta.records(t) != 0 {
				t.Fatalf("%d runs and %d records, want 2 and 0", ta.runs.Load(), ta.records(t))
			}
		})
	}
}

func TestDefaultScopeNeedsACredential(t *testing.T) {
	ta := newTestApp(t, nil)
	r := ta.call(t, "POST", "/v3/things", "{}", HeaderKey, "k1")
	if r.status != http.StatusInternalServerError || ta.runs.Load() != 0 {
		t.Fatalf("got %+v after %d runs, want 500 without running", r, ta.runs.Load())
	}
}
