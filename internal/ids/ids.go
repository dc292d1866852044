// Package ids makes mtk's opaque, prefixed identifiers (ws_..., prj_..., con_...).
package ids

import (
	"crypto/rand"
	"encoding/base32"
)

// The prefixes of the contract, and a few of mtk's own.
const (
	Workspace   = "ws"
	User        = "usr"
	APIKey      = "key"
	OAuthClient = "oac"
	Project     = "prj"
	Connection  = "con"
	SyncRun     = "sync"
	Container   = "ctr"
	Trigger     = "trg"
	Lead        = "lead"
	Event       = "evt"
	Link        = "lnk"
)

var enc = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// New returns prefix_ followed by 16 random base32 characters (80 bits).
func New(prefix string) string {
	return prefix + "_" + Random(10)
}

// Random returns n random bytes as lower-case base32 text.
func Random(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("ids: no randomness: " + err.Error())
	}
	return Text(b)
}

// Text writes b as the ids' base32 text (its alphabet is lower case already).
func Text(b []byte) string { return enc.EncodeToString(b) }

// AppendText appends b's Text to dst.
func AppendText(dst, b []byte) []byte { return enc.AppendEncode(dst, b) }
