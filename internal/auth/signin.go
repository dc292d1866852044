package auth

import (
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// SignInLifetime is how long the OAuth consent page's sign-in lasts: between the password and the
// approval.
const SignInLifetime = 10 * time.Minute

// signInIssuer differs from the login JWT's issuer, so ParseJWT refuses a sign-in token: it
// approves one consent, and is no API credential.
const signInIssuer = "mtk/oauth-consent"

// IssueSignIn signs a short-lived token that says userID signed in on the consent page of the
// browser whose CSRF binding is binding (the token is worthless in another browser).
func IssueSignIn(secret []byte, userID, binding string, now time.Time) (string, error) {
	claims := jwt.RegisteredClaims{
		Issuer:    signInIssuer,
		Subject:   userID,
		ID:        binding,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(SignInLifetime)),
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}

// ParseSignIn verifies a sign-in token made for binding and returns its user id.
func ParseSignIn(secret []byte, token, binding string, now time.Time) (string, error) {
	var claims jwt.RegisteredClaims
	if err := parseClaims(secret, token, signInIssuer, now, &claims); err != nil {
		return "", err
	}
	if claims.ID != binding {
		return "", fmt.Errorf("%w: not this browser's sign-in", ErrInvalidJWT)
	}
	return claims.Subject, nil
}
