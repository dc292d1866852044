package adsim

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Paging: every list is computed in a stable order and cut into pages by offset. Cursors and
// page tokens are opaque to clients; inside they carry the offset and a short hash of what was
// asked, so a token from another query is refused instead of silently misread.

// encodeCursor makes an opaque cursor for offset within the query identified by queryKey.
func encodeCursor(offset int, queryKey string) string {
	raw := fmt.Sprintf("%d:%x", offset, strKey(queryKey)&0xffffff)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeCursor reads a cursor made by encodeCursor for the same queryKey.
func decodeCursor(c, queryKey string) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, fmt.Errorf("invalid cursor %q", c)
	}
	off, sum, ok := strings.Cut(string(raw), ":")
	n, err := strconv.Atoi(off)
	if !ok || err != nil || n < 0 || sum != fmt.Sprintf("%x", strKey(queryKey)&0xffffff) {
		return 0, fmt.Errorf("invalid cursor %q", c)
	}
	return n, nil
}

// window returns the bounds of the page of size limit starting at offset in a list of total.
func window(total, offset, limit int) (lo, hi int) {
	lo = min(offset, total)
	return lo, min(lo+limit, total)
}
