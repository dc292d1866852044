package auth

import (
	"strings"
	"testing"
	"time"
)

// TestPKCE: RFC 7636 appendix B's example, and what is refused.
func TestPKCE(t *testing.T) {
	const verifier, challenge = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	if got := S256Challenge(verifier); got != challenge {
		t.Fatalf("S256(%s) = %s, want %s", verifier, got, challenge)
	}
	if !VerifyPKCE(verifier, challenge) || !ValidChallenge(challenge) {
		t.Fatal("the RFC's pair does not verify")
	}
	for _, bad := range []string{"", "short", verifier + "!", strings.Repeat("a", 129)} {
		if VerifyPKCE(bad, S256Challenge(bad)) {
			t.Errorf("verifier %q is malformed yet verifies", bad)
		}
	}
	if VerifyPKCE(verifier, S256Challenge(verifier+"x")) || ValidChallenge(challenge+"=") {
		t.Fatal("a wrong challenge verifies")
	}
}

// TestSignInIsNoLoginToken: the consent page's sign-in is refused as an API JWT, in another
// browser, and after its lifetime; a login JWT is no sign-in either.
func TestSignInIsNoLoginToken(t *testing.T) {
	secret, now := []byte("secret-secret-secret-secret-0123"), time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	tok, err := IssueSignIn(secret, "usr_1", "binding-a", now)
	if err != nil {
		t.Fatal(err)
	}
	if user, err := ParseSignIn(secret, tok, "binding-a", now); err != nil || user != "usr_1" {
		t.Fatalf("ParseSignIn: %q %v", user, err)
	}
	if _, err := ParseJWT(secret, tok, now); err == nil {
		t.Fatal("a sign-in token is accepted as a login JWT")
	}
	if _, err := ParseSignIn(secret, tok, "binding-b", now); err == nil {
		t.Fatal("a sign-in token works in another browser")
	}
	if _, err := ParseSignIn(secret, tok, "binding-a", now.Add(SignInLifetime)); err == nil {
		t.Fatal("a sign-in token outlives SignInLifetime")
	}
	login, _ := IssueJWT(secret, "usr_1", 0, now)
	if _, err := ParseSignIn(secret, login, "", now); err == nil {
		t.Fatal("a login JWT is accepted as a sign-in")
	}
}
