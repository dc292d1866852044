package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"mtk/platform"
)

// login posts e-mail and password to a running server and returns the status and the token.
func login(t *testing.T, base, email, password string) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	resp, err := http.Post(base+"/v3/auth/login", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck
	return resp.StatusCode, out.Token
}

// TestUserPasswordCommand: mtk user password sets a new password; a running server refuses the
// user's earlier login tokens within the cache's lifetime, and the old password.
func TestUserPasswordCommand(t *testing.T) {
	useTestStores(t)
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	cliJSON(t, "user", "create", "--email", "me@acme.test", "--password", "first-password", "--workspace", wsID)
	base := serve(t)
	status, token := login(t, base, "me@acme.test", "first-password")
	if status != 200 {
		t.Fatalf("login: %d", status)
	}
	if status, body := get(t, base+"/v3/projects", token); status != 200 {
		t.Fatalf("fresh token: %d %s", status, body)
	}

	if u := cliJSON(t, "user", "password", "--email", " ME@acme.test ", "--password", "second-password"); u["email"] != "me@acme.test" {
		t.Fatalf("user password printed %v", u)
	}
	deadline := time.Now().Add(platform.KeyCacheTTL + time.Second)
	status, body := get(t, base+"/v3/connections/con_x/sync", token)
	for ; status != 401 && time.Now().Before(deadline); status, body = get(t, base+"/v3/connections/con_x/sync", token) {
		time.Sleep(100 * time.Millisecond)
	}
	if status != 401 || !strings.Contains(body, `"invalid_token"`) {
		t.Fatalf("a token from before the password change: %d %s", status, body)
	}
	if status, _ := login(t, base, "me@acme.test", "first-password"); status != 401 {
		t.Fatalf("the old password: %d", status)
	}
	if status, token = login(t, base, "me@acme.test", "second-password"); status != 200 {
		t.Fatalf("the new password: %d", status)
	}
	if status, body := get(t, base+"/v3/projects", token); status != 200 {
		t.Fatalf("a token of the new password: %d %s", status, body)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"user", "password", "--email", "me@acme.test"}, 2, "missing --password"},
		{[]string{"user", "password", "--email", "me@acme.test", "--password", "short"}, 1, "password: must be at least 8 characters"},
		{[]string{"user", "password", "--email", "nobody@acme.test", "--password", "long-enough"}, 1, "User not found"},
	} {
		if _, errOut, code := cli(t, c.args...); code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("mtk %v: exit %d (want %d), stderr %q, want %q", c.args, code, c.code, errOut, c.want)
		}
	}
}
