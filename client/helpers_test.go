package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"mtk/client"
	"mtk/internal/apitest"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/platform"
)

// epoch is the server's fake time at the start of each test: the start of a rate-limit window.
var epoch = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

// world is a test's API server, on its own databases with a fake clock, and a tenant with keys.
type world struct {
	srv *apitest.Server
	clk *clock.Fake
	tn  apitest.Tenant
	// readKey holds data:read, writeKey data:write, trackKey tracking:read and tracking:write.
	readKey, writeKey, trackKey string
}

func newWorld(t *testing.T, tier string) *world {
	t.Helper()
	clk := clock.NewFake(epoch)
	w := &world{srv: apitest.Start(t, apitest.Options{Clock: clk}), clk: clk}
	w.tn = w.srv.NewTenant(t, "acme", tier)
	w.readKey = w.srv.Key(t, w.tn.Workspace.ID, auth.ScopeDataRead)
	w.writeKey = w.srv.Key(t, w.tn.Workspace.ID, auth.ScopeDataWrite)
	w.trackKey = w.srv.Key(t, w.tn.Workspace.ID, auth.ScopeTrackingRead, auth.ScopeTrackingWrite)
	return w
}

// client is a client of the world's server with key, whose waits move the server's clock.
func (w *world) client(key string, opts ...client.Option) (*client.Client, *fakeClock) {
	fc := &fakeClock{server: w.clk}
	return client.New(w.srv.URL, append([]client.Option{client.WithAPIKey(key), client.WithClock(fc)}, opts...)...), fc
}

// otherWorkspaceProject makes a project of another workspace.
func (w *world) otherWorkspaceProject(t *testing.T) platform.Project {
	t.Helper()
	ctx := context.Background()
	ws, err := w.srv.Store.Workspaces.CreateWorkspace(ctx, "other", platform.TierDefault)
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.srv.Store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "Other", Currency: "USD", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeClock is a client.Clock that records the waits instead of waiting, and moves the server's
// clock (when it has one) by each of them.
type fakeClock struct {
	server *clock.Fake
	mu     sync.Mutex
	slept  time.Duration
	waits  []time.Duration
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return time.Now().Add(f.slept)
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slept += d
	f.waits = append(f.waits, d)
	if f.server != nil {
		f.server.Advance(d)
	}
	return nil
}

func (f *fakeClock) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.waits)
}

// wantAPIError checks that err is an *Error with status, type and code, and a request id and a
// message, and returns it.
func wantAPIError(t *testing.T, err error, status int, typ, code string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *client.Error %d %s/%s, got %v", status, typ, code, err)
	}
	if e.StatusCode != status || e.Type != typ || e.Code != code {
		t.Fatalf("got %d %s/%s, want %d %s/%s: %v", e.StatusCode, e.Type, e.Code, status, typ, code, e)
	}
	if e.RequestID == "" || e.Message == "" {
		t.Fatalf("error without request id or message: %+v", e)
	}
	return e
}

// recorder is a transport that records the Idempotency-Key of every request it sends, and can
// lose the answer of the first one after the server has handled it.
type recorder struct {
	base http.RoundTripper
	// loseFirst makes the first answer a connection error (lose) or a 503 (status), once read.
	loseFirst     bool
	replaceStatus int
	mu            sync.Mutex
	keys          []string
	// lostBody is the body of the answer that was lost.
	lostBody []byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.keys = append(r.keys, req.Header.Get("Idempotency-Key"))
	first := len(r.keys) == 1
	r.mu.Unlock()
	resp, err := r.base.RoundTrip(req)
	if err != nil || !first || (!r.loseFirst && r.replaceStatus == 0) {
		return resp, err
	}
	r.lostBody, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if r.replaceStatus != 0 {
		return &http.Response{StatusCode: r.replaceStatus, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	}
	return nil, errors.New("connection reset by peer (simulated, after the server answered)")
}

func (r *recorder) Keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.keys)
}
