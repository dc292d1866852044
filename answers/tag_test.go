package answers

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestTag: an answer's ETag is the quoted hex of the first half of its key's SHA-256, for keys
// of every length (a prepared key and its version, or longer), and costs one allocation.
func TestTag(t *testing.T) {
	for _, key := range []string{"", "k", strings.Repeat("\xff", 40), strings.Repeat("x", 64), strings.Repeat("y", 200)} {
		sum := sha256.Sum256([]byte(key))
		if got, want := tag(key), `"`+hex.EncodeToString(sum[:16])+`"`; got != want {
			t.Errorf("tag(%q) = %s, want %s", key, got, want)
		}
	}
	key := strings.Repeat("k", 40)
	if n := testing.AllocsPerRun(100, func() { _ = tag(key) }); n != 1 {
		t.Errorf("%v allocations, want 1", n)
	}
}
