package auth

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestAPIKeyTokenShape(t *testing.T) {
	a, err := NewAPIKeyToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewAPIKeyToken()
	if a == b {
		t.Fatal("two tokens are equal")
	}
	if !strings.HasPrefix(a, "mtk_live_") || !LooksLikeAPIKey(a) {
		t.Fatalf("token %q does not have the mtk_live_ shape", a)
	}
	if LooksLikeAPIKey("mtk_live_short") || LooksLikeAPIKey("Bearer x") {
		t.Fatal("malformed tokens pass the shape check")
	}
	if len(HashAPIKey(a)) != 32 || string(HashAPIKey(a)) == string(HashAPIKey(b)) {
		t.Fatal("hash is not a distinct SHA-256")
	}
	if got := DisplayPrefix(a); len(got) != len("mtk_live_")+6 || !strings.HasPrefix(a, got) {
		t.Fatalf("display prefix %q", got)
	}
}

func TestJWT(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tok, err := IssueJWT(secret, "usr_1", 3, now)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		secret  []byte
		token   string
		at      time.Time
		wantSub string
	}{
		{"valid", secret, tok, now.Add(time.Hour), "usr_1"},
		{"almost 7 days", secret, tok, now.Add(JWTLifetime - time.Second), "usr_1"},
		{"expired after 7 days", secret, tok, now.Add(JWTLifetime + time.Second), ""},
		{"other secret", []byte("another-secret-another-secret-xx"), tok, now, ""},
		{"garbage", secret, "a.b.c", now, ""},
		{"tampered", secret, tok[:len(tok)-2] + "xx", now, ""},
		{"no id", secret, signed(t, secret, jwt.MapClaims{"iss": "mtk", "sub": "usr_1", "exp": now.Add(time.Hour).Unix()}), now, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseJWT(c.secret, c.token, c.at)
			if got.UserID != c.wantSub || (c.wantSub == "") != (err != nil) {
				t.Fatalf("ParseJWT = %+v, %v; want user %q", got, err, c.wantSub)
			}
		})
	}
	got, _ := ParseJWT(secret, tok, now)
	if got.Generation != 3 || !got.ExpiresAt.Equal(now.Add(JWTLifetime)) || len(got.ID) < 20 {
		t.Fatalf("claims %+v: want generation 3, expiry in 7 days and an id", got)
	}
	other, _ := IssueJWT(secret, "usr_1", 3, now)
	if again, _ := ParseJWT(secret, other, now); again.ID == got.ID {
		t.Fatal("two tokens share an id: logging one out would log out the other")
	}
}

// signed signs claims with HS256 as a token from elsewhere would be.
func signed(t *testing.T, secret []byte, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPrincipalScopesAndCounterKeys(t *testing.T) {
	key := &Principal{Kind: KindAPIKey, KeyID: "key_1", WorkspaceID: "ws_1", Scopes: []string{ScopeDataRead}}
	if !key.Has(ScopeDataRead) || key.Has(ScopeDataWrite) {
		t.Fatal("key scopes not honoured")
	}
	user := &Principal{Kind: KindJWT, UserID: "usr_1", WorkspaceID: "ws_1"}
	if !user.Has(ScopeDataRead) || !user.Has(ScopeTrackingRead) || user.Has(ScopeDataWrite) || user.Has(ScopeTrackingWrite) {
		t.Fatal("a member reads and does not write")
	}
	if writer := (&Principal{Kind: KindJWT, UserID: "usr_2", WorkspaceID: "ws_1", Writer: true}); !writer.Has(ScopeDataWrite) || !writer.Has(ScopeTrackingWrite) {
		t.Fatal("an owner or admin holds every scope")
	}
	public := &Principal{Kind: KindPublic, ClientIP: "10.0.0.1"}
	for p, want := range map[*Principal]string{key: "key:key_1", user: "user:usr_1:ws_1", public: "ip:10.0.0.1"} {
		if got := p.CounterKey(); got != want {
			t.Errorf("CounterKey = %q, want %q", got, want)
		}
	}
}
