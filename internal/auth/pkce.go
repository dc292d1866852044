package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"regexp"
)

// PKCEMethod is the one code_challenge_method mtk accepts: plain would let a stolen
// authorization request redeem its code (RFC 7636 section 7.2).
const PKCEMethod = "S256"

// verifierShape is RFC 7636's code_verifier: 43 to 128 unreserved characters.
var verifierShape = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// challengeShape is an S256 code_challenge: a SHA-256 in unpadded URL-safe base64.
var challengeShape = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// ValidVerifier reports whether v is a well-formed code_verifier.
func ValidVerifier(v string) bool { return verifierShape.MatchString(v) }

// ValidChallenge reports whether c is a well-formed S256 code_challenge.
func ValidChallenge(c string) bool { return challengeShape.MatchString(c) }

// S256Challenge is the code_challenge of verifier: BASE64URL(SHA256(verifier)).
func S256Challenge(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// VerifyPKCE reports whether verifier is well formed and hashes to challenge.
func VerifyPKCE(verifier, challenge string) bool {
	return ValidVerifier(verifier) && subtle.ConstantTimeCompare([]byte(S256Challenge(verifier)), []byte(challenge)) == 1
}
