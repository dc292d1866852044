package conform

import "testing"

// TestFiberPath: the check finds the documented operation of a path the way Fiber routes it.
func TestFiberPath(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/v3/Connections/con_AbC/sync/":        "/v3/connections/con_AbC/sync",
		"/V3/TRACKING/containers/MTK-7F3K9Q":   "/v3/tracking/containers/MTK-7F3K9Q",
		"/healthz/":                            "/healthz",
		"/v3/no-such-route":                    "",
		"/v3/tracking/containers//triggers":    "",
		"/v3/tracking/containers/a/b/triggers": "",
	} {
		got, ok := c.fiberPath(path)
		if got != want || ok != (want != "") {
			t.Errorf("fiberPath(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}
