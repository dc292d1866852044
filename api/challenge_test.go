package api_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"mtk/api"
	"mtk/internal/auth"
	"mtk/platform"
)

// TestUnauthorizedChallenges: every 401 carries WWW-Authenticate (RFC 6750 section 3), with
// error="invalid_token" exactly when a credential was presented and refused; the OAuth client's
// invalid_client challenges HTTP Basic.
func TestUnauthorizedChallenges(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	past := e.clock.Now().Add(-time.Hour)
	expired := e.key(tn.ws.ID, &past, auth.ScopeDataRead)
	client := e.newClient(true, auth.ScopeDataRead)
	const plain, refused = `Bearer realm="mtk"`, `Bearer realm="mtk", error="invalid_token"`
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	wrong := map[string]string{"email": tn.user.Email, "password": "wrong-password"}
	cases := []struct {
		name string
		r    response
		want string
	}{
		{"no credential, envelope", e.do("GET", "/v3/connections/"+tn.alpha.ID+"/sync", nil), plain},
		{"no credential, legacy body", e.do("GET", "/v3/projects", nil), plain},
		{"unknown key", e.do("GET", "/v3/projects", nil, bearer("mtk_live_"+strings.Repeat("A", 43))...), refused},
		{"garbage in x-api-key", e.do("GET", "/v3/fields", nil, "x-api-key", "nope"), refused},
		{"expired key", e.do("GET", "/v3/connections/"+tn.alpha.ID+"/sync", nil, bearer(expired)...), refused},
		{"bad JWT", e.do("GET", "/v3/projects", nil, bearer("aaa.bbb.ccc")...), refused},
		{"wrong login password", e.do("POST", "/v3/auth/login", wrong), plain},
		{"wrong login password with a bearer", e.do("POST", "/v3/auth/login", wrong, "Authorization", "Bearer x"), plain},
		{"unknown webhook key", e.do("POST", "/v2/tracking/generic?k=nope", map[string]any{}), refused},
		{"no webhook key", e.do("POST", "/v2/tracking/generic", map[string]any{}), plain},
		{"OAuth client secret", e.do("POST", api.PathToken, url.Values{"grant_type": {"authorization_code"}, "client_id": {client.ID},
			"client_secret": {"wrong"}}.Encode(), form...), `Basic realm="mtk"`},
	}
	for _, c := range cases {
		if c.r.Status != 401 || c.r.Header.Get("WWW-Authenticate") != c.want {
			t.Errorf("%s: %d with WWW-Authenticate %q, want 401 with %q", c.name, c.r.Status, c.r.Header.Get("WWW-Authenticate"), c.want)
		}
	}
}
