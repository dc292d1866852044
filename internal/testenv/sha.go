package testenv

import (
	"crypto/sha256"
	"encoding/hex"
)

// SHA256 is the SHA-256 of s in lowercase hex, as the conversions API wants hashed user data;
// tests compute it here, apart from the hashing they check.
func SHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
