package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"

	"mtk/tag"
)

// TestTagScript: GET /t/{container}.js answers the container's script by each of its three
// references, public and cacheable; its ETag moves when a trigger changes; a deleted or unknown
// container is a 404 without JavaScript.
func TestTagScript(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	admin := append(bearer(e.login(a.tenant)), "X-Workspace-Id", a.ws.ID)
	path := tag.Path(*a.v3.TrackingCode)

	first := e.do("GET", path, nil, "Accept-Encoding", "gzip")
	if first.Status != 200 || first.Header.Get("Content-Encoding") != "gzip" ||
		first.Header.Get("Cache-Control") != "public, max-age=300" || !strings.HasPrefix(first.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("%d %v", first.Status, first.Header)
	}
	if len(first.Body) > 6<<10 {
		t.Fatalf("the script is %d bytes gzipped, more than 6 KB", len(first.Body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(first.Body))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"eval(", "new Function", "document.write", "http://", "https://"} {
		if bytes.Contains(js, []byte(banned)) {
			t.Errorf("the script holds %q", banned)
		}
	}
	etag := first.Header.Get("ETag")
	if r := e.do("GET", path, nil, "If-None-Match", etag); r.Status != 304 || len(r.Body) != 0 {
		t.Fatalf("revalidation: %d %s", r.Status, r.Body)
	}
	for _, ref := range []string{a.v3.ID, strings.ToLower(*a.v3.TrackingCode), a.v2.Domain, a.v2.ID} {
		if r := e.do("GET", tag.Path(ref), nil); r.Status != 200 || !bytes.Contains(r.Body, []byte(`"key":"_mtk_lead"`)) {
			t.Fatalf("%s: %d %.200s", ref, r.Status, r.Body)
		}
	}

	r := e.do("POST", "/v3/tracking/containers/"+a.v3.ID+"/triggers", rulesTrigger(map[string]any{"type": "element_click", "selector": "#buy"}), admin...)
	if r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	moved := e.do("GET", path, nil, "If-None-Match", etag)
	if moved.Status != 200 || moved.Header.Get("ETag") == etag || !bytes.Contains(moved.Body, []byte(`"selector":"#buy"`)) {
		t.Fatalf("after a new trigger: %d %s %.300s", moved.Status, moved.Header.Get("ETag"), moved.Body)
	}
	// A server-side trigger is not the script's.
	if r := e.do("POST", "/v3/tracking/containers/"+a.v3.ID+"/triggers", rulesTrigger(map[string]any{"type": "checkout_transaction_approved"}), admin...); r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if r := e.do("GET", path, nil); bytes.Contains(r.Body, []byte("checkout_transaction_approved")) {
		t.Fatal("the script holds a server-side trigger")
	}

	if err := e.store.Containers.DeleteContainer(context.Background(), a.v3.ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, tag.Path("MTK-000000"), tag.Path("nowhere.example"), "/t/" + a.v2.ID, "/t/" + a.v2.ID + ".jsx"} {
		r := e.do("GET", p, nil)
		if r.Status != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("%s: %d %s %s", p, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
}
