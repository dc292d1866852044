package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOAuthClientCommands: create prints a confidential client's secret once (a public one has
// none), list shows both without secrets, revoke marks the client; bad input names what to fix.
func TestOAuthClientCommands(t *testing.T) {
	useTestStores(t)
	conf := cliJSON(t, "oauth-client", "create", "--name", "Acme Reports", "--redirect-uri", "https://acme.example/cb",
		"--redirect-uri", "http://127.0.0.1:8765/cb", "--scopes", "data:read,tracking:read")
	id, secret := conf["client_id"].(string), conf["client_secret"].(string)
	if !strings.HasPrefix(id, "oac_") || !strings.HasPrefix(secret, "mtk_secret_") || conf["confidential"] != true ||
		len(conf["redirect_uris"].([]any)) != 2 {
		t.Fatalf("confidential client %v", conf)
	}
	public := cliJSON(t, "oauth-client", "create", "--name", "Acme App", "--redirect-uri", "com.acme.app:/oauth", "--scopes", "data:read", "--public")
	if _, has := public["client_secret"]; has || public["confidential"] != false {
		t.Fatalf("public client %v", public)
	}

	out, _, code := cli(t, "oauth-client", "list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, public["client_id"].(string)) || strings.Contains(out, secret) {
		t.Fatalf("list (exit %d) must show both clients and no secret:\n%s", code, out)
	}
	if revoked := cliJSON(t, "oauth-client", "revoke", id); revoked["revoked_at"] == nil {
		t.Fatalf("revoke: %v", revoked)
	}
	out, _, _ = cli(t, "oauth-client", "list", "--json")
	var clients []map[string]any
	if err := json.Unmarshal([]byte(out), &clients); err != nil || len(clients) != 2 {
		t.Fatalf("list --json: %v\n%s", err, out)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"oauth-client", "create", "--name", "x"}, 2, "missing --redirect-uri, --scopes"},
		{[]string{"oauth-client", "create", "--name", "x", "--redirect-uri", "http://acme.example/cb", "--scopes", "data:read"}, 1, "loopback"},
		{[]string{"oauth-client", "create", "--name", "x", "--redirect-uri", "https://acme.example/cb#top", "--scopes", "data:read"}, 1, "fragment"},
		{[]string{"oauth-client", "create", "--name", "x", "--redirect-uri", "https://acme.example/cb", "--scopes", "admin"}, 1, `unknown scope "admin"`},
		{[]string{"oauth-client", "revoke", "oac_nope"}, 1, "OAuth client not found"},
	} {
		if _, errOut, code := cli(t, c.args...); code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("mtk %v: exit %d (want %d), stderr %q, want %q", c.args, code, c.code, errOut, c.want)
		}
	}
}
