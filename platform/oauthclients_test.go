package platform

import "testing"

// TestAllowsRedirect: a redirect URI registered on a loopback IP literal matches with any port
// (RFC 8252 section 7.3); everything else, localhost included, matches exactly.
func TestAllowsRedirect(t *testing.T) {
	c := OAuthClient{RedirectURIs: []string{
		"http://127.0.0.1:8765/cb",
		"http://[::1]/cb?app=1",
		"http://localhost:8765/cb",
		"https://platform.example/oauth/callback",
		"com.example.app:/oauth",
	}}
	for _, tc := range []struct {
		uri  string
		want bool
	}{
		{"http://127.0.0.1:8765/cb", true},
		{"http://127.0.0.1:51004/cb", true},
		{"http://127.0.0.1/cb", true},
		{"http://[::1]:49152/cb?app=1", true},
		{"http://[::1]/cb?app=1", true},
		{"http://localhost:8765/cb", true},
		{"https://platform.example/oauth/callback", true},
		{"com.example.app:/oauth", true},

		{"http://127.0.0.1:51004/cb/", false},       // another path
		{"http://127.0.0.1:51004/other", false},     // another path
		{"http://127.0.0.1:51004/cb?x=1", false},    // another query
		{"http://[::1]:49152/cb", false},            // the query dropped
		{"http://[::1]:49152/cb?app=1#frag", false}, // a fragment
		{"https://127.0.0.1:51004/cb", false},       // another scheme
		{"http://127.0.0.2:8765/cb", false},         // another host
		{"http://[::1]:8765/cb", false},             // the other loopback family: registered apart
		{"http://127.0.0.1.evil.example/cb", false}, // a host that starts like the literal
		{"http://127.0.0.1:8765@evil.example/cb", false},
		{"http://127.0.0.1:/cb", false},       // an empty port
		{"http://127.0.0.1:123456/cb", false}, // not a port
		{"http://localhost:51004/cb", false},  // localhost matches exactly
		{"https://platform.example:8443/oauth/callback", false},
		{"https://platform.example/oauth/callback?x=1", false},
		{"HTTP://127.0.0.1:8765/cb", false},
	} {
		if got := c.AllowsRedirect(tc.uri); got != tc.want {
			t.Errorf("AllowsRedirect(%q) = %v, want %v", tc.uri, got, tc.want)
		}
	}
}
