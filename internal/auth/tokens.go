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

// SumAPIKey is HashAPIKey as an array, which a caller that verifies a key at every request keeps
// on its stack.
func SumAPIKey(token string) [sha256.Size]byte { return sumSecret(token) }

// HashSecret is what is stored for any NewSecret value: its SHA-256 (see HashAPIKey).
func HashSecret(secret string) []byte {
	h := sumSecret(secret)
	return h[:]
}

// sumSecret hashes s from a copy on the stack: []byte(s) of a string longer than 32 bytes is
// a copy on the heap, and tokens and secrets are shorter than the buffer.
func sumSecret(s string) [sha256.Size]byte {
	var buf [128]byte
	return sha256.Sum256(append(buf[:0], s...))
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

// LoginToken is what a verified login JWT says. The signature proves it was issued; whether it
// was taken back since (a logout, a password change) is for the platform store to say.
type LoginToken struct {
	UserID string
	// ID (the jti claim) names this one token, so that logging out revokes it alone.
	ID string
	// Generation (the gen claim) is the user's token generation when it was issued: a password
	// change moves the user's on, and tokens of an older one are refused.
	Generation int64
	ExpiresAt  time.Time
}

// loginClaims are a login JWT's claims.
type loginClaims struct {
	jwt.RegisteredClaims
	Generation int64 `json:"gen"`
}

// tokenIDBytes is the entropy of a login token's id.
const tokenIDBytes = 16

// IssueJWT signs an HS256 token for userID of the user's token generation, valid for
// JWTLifetime from now, with a fresh id.
func IssueJWT(secret []byte, userID string, generation int64, now time.Time) (string, error) {
	id := make([]byte, tokenIDBytes)
	if _, err := rand.Read(id); err != nil {
		return "", err
	}
	claims := loginClaims{Generation: generation, RegisteredClaims: jwt.RegisteredClaims{
		Issuer:    jwtIssuer,
		Subject:   userID,
		ID:        base64.RawURLEncoding.EncodeToString(id),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(JWTLifetime)),
	}}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}

// ErrInvalidJWT is returned for any token that does not verify.
var ErrInvalidJWT = errors.New("invalid token")

// ParseJWT verifies a login token (HS256 only, issuer, expiry against now, an id) and returns
// what it says.
func ParseJWT(secret []byte, token string, now time.Time) (LoginToken, error) {
	var claims loginClaims
	if err := parseClaims(secret, token, jwtIssuer, now, &claims); err != nil {
		return LoginToken{}, err
	}
	if claims.ID == "" {
		return LoginToken{}, fmt.Errorf("%w: no id", ErrInvalidJWT)
	}
	return LoginToken{UserID: claims.Subject, ID: claims.ID, Generation: claims.Generation, ExpiresAt: claims.ExpiresAt.Time}, nil
}

// parseClaims verifies an HS256 token of issuer, unexpired at now and with a subject, into claims.
func parseClaims(secret []byte, token, issuer string, now time.Time, claims jwt.Claims) error {
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }),
	)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidJWT, err)
	}
	if sub, _ := claims.GetSubject(); sub == "" {
		return fmt.Errorf("%w: no subject", ErrInvalidJWT)
	}
	return nil
}
