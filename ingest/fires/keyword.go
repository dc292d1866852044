package fires

import (
	"strings"
	"unicode"
)

// HoldsKeyword reports whether text holds keyword, ignoring case and accents ("Promoção" holds
// "PROMOCAO"). An empty keyword is held by no text: a trigger without one never fires.
func HoldsKeyword(text, keyword string) bool {
	k := Fold(keyword)
	return strings.TrimSpace(k) != "" && strings.Contains(Fold(text), k)
}

// Fold lower-cases s and strips the accents of Latin letters, so that texts are compared as a
// person reads them.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		r = unicode.ToLower(r)
		if base, ok := unaccented[r]; ok {
			b.WriteString(base)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unaccented maps the accented lower-case Latin letters of Western and Central European languages
// to their base letters (the standard library has no Unicode decomposition).
var unaccented = func() map[rune]string {
	m := map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ł': "l"}
	for base, accented := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ď", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥ",
		"i": "ìíîïĩīĭįı", "j": "ĵ", "k": "ķ", "l": "ĺļľ", "n": "ñńņňŉ", "o": "òóôõöōŏő",
		"r": "ŕŗř", "s": "śŝşš", "t": "ţť", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()
