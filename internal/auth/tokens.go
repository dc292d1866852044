package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// APIKeyPrefix starts every API key token.
const APIKeyPrefix = "mtk_live_"

// apiKeySecretBytes is the entropy of an API key's secret.
const apiKeySecretBytes = 32

// NewAPIKeyToken returns a fresh token, mtk_live_ followed by 43 URL-safe base64 characters
// (32 random bytes).
func NewAPIKeyToken() (string, error) { return NewSecret(APIKeyPrefix) }

// NewSecret returns prefix followed by 32 random bytes in URL-safe base64 (43 characters): API
// keys, OAuth client secrets and authorization codes.
func NewSecret(prefix string) (string, error) {
	b := make([]byte, apiKeySecretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// HashAPIKey is what is stored for a token: its SHA-256. A fast hash is right here because the
// secret has 256 bits of entropy; nothing can be guessed from it.
func HashAPIKey(token string) []byte { return HashSecret(token) }

// HashSecret is what is stored for any NewSecret value: its SHA-256 (see HashAPIKey).
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// LooksLikeAPIKey reports whether token has the shape of an mtk API key.
func LooksLikeAPIKey(token string) bool {
	secret, ok := strings.CutPrefix(token, APIKeyPrefix)
	return ok && len(secret) == base64.RawURLEncoding.EncodedLen(apiKeySecretBytes)
}

// DisplayPrefix is the part of a token that may be shown after creation (mtk_live_ and 6 chars).
func DisplayPrefix(token string) string {
	if len(token) < len(APIKeyPrefix)+6 {
		return token
	}
	return token[:len(APIKeyPrefix)+6]
}

// JWTLifetime is how long a login token is valid.
const JWTLifetime = 7 * 24 * time.Hour

const jwtIssuer = "mtk"

// IssueJWT signs an HS256 token for userID, valid for JWTLifetime from now.
func IssueJWT(secret []byte, userID string, now time.Time) (string, error) {
	claims := jwt.RegisteredClaims{
		Issuer:    jwtIssuer,
		Subject:   userID,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(JWTLifetime)),
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}

// ErrInvalidJWT is returned for any token that does not verify.
var ErrInvalidJWT = errors.New("invalid token")

// ParseJWT verifies token (HS256 only, issuer, expiry against now) and returns the user id.
func ParseJWT(secret []byte, token string, now time.Time) (string, error) {
	claims, err := parseClaims(secret, token, jwtIssuer, now)
	return claims.Subject, err
}

// parseClaims verifies an HS256 token of issuer, unexpired at now and with a subject.
func parseClaims(secret []byte, token, issuer string, now time.Time) (jwt.RegisteredClaims, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }),
	)
	if err != nil {
		return jwt.RegisteredClaims{}, fmt.Errorf("%w: %v", ErrInvalidJWT, err)
	}
	if claims.Subject == "" {
		return jwt.RegisteredClaims{}, fmt.Errorf("%w: no subject", ErrInvalidJWT)
	}
	return claims, nil
}
