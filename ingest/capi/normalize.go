package capi

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
)

// The normalizers below return "" for a value that cannot be sent; the caller then omits it.

// normEmail trims and lowercases; a value without text on both sides of a single '@', or with
// spaces inside, is dropped.
func normEmail(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	local, domain, ok := strings.Cut(v, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") || strings.ContainsFunc(v, unicode.IsSpace) {
		return ""
	}
	return v
}

// normPhone drops the optional-trunk notation "(0)", keeps the digits and drops leading zeros
// (an international "00" prefix or a trunk "0"). No country code is guessed.
func normPhone(v string) string {
	digits := strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, strings.ReplaceAll(v, "(0)", ""))
	return strings.TrimLeft(digits, "0")
}

// normName lowercases and keeps letters and combining marks, with single spaces between words;
// punctuation, symbols and digits are dropped ("Mary-Ann" is "maryann", "O'Brien" "obrien").
func normName(v string) string {
	words := strings.Fields(strings.ToLower(v))
	for i, w := range words {
		words[i] = lettersOnly(w)
	}
	return strings.Join(strings.Fields(strings.Join(words, " ")), " ")
}

// normCity lowercases and keeps letters and combining marks only ("São Paulo" is "sãopaulo").
func normCity(v string) string {
	return lettersOnly(strings.ToLower(v))
}

// normState is normCity, then, when the country is the US or unknown, a US state's or
// territory's name becomes its two-letter code ("New York" is "ny").
func normState(v, country string) string {
	v = normCity(v)
	if code, ok := usStates[v]; ok && (country == "" || country == "us") {
		return code
	}
	return v
}

// normZip lowercases and keeps letters and digits only. US codes keep their first 5 digits: when
// the country is the US, or when it is unknown and the value is a ZIP+4 ("94025-1234"). UK codes
// are cut to area, district and sector ("SW1A 1AA" is "sw1a1").
func normZip(v, country string) string {
	raw := strings.TrimSpace(v)
	v = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, raw)
	switch {
	case country == "us" || country == "" && isZipPlus4(raw):
		if len(v) > 5 && isDigits(v[:5]) {
			return v[:5]
		}
	case country == "gb":
		if n := len(v); n >= 5 && isLetter(v[n-1]) && isLetter(v[n-2]) && '0' <= v[n-3] && v[n-3] <= '9' {
			return v[:n-2]
		}
	}
	return v
}

func isZipPlus4(v string) bool {
	return len(v) == 10 && v[5] == '-' && isDigits(v[:5]) && isDigits(v[6:])
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' }

// normCountry lowercases and keeps letters; the result must be an ISO 3166-1 alpha-2 code in use
// ("uk" is read as "gb"). Country names are not translated: anything else is dropped.
func normCountry(v string) string {
	v = strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r
		}
		return -1
	}, strings.ToLower(v))
	if v == "uk" {
		v = "gb"
	}
	if !isoCountries[v] {
		return ""
	}
	return v
}

// normExternalID trims; case is kept.
func normExternalID(v string) string { return strings.TrimSpace(v) }

func lettersOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsMark(r) {
			return r
		}
		return -1
	}, s)
}

// hashed returns the SHA-256 (lowercase hex) of norm(v) as a one-element list, nil when nothing
// is left to send. A value that is already a SHA-256 (64 hex digits, any case) is passed through
// in lowercase, without normalizing.
func hashed(v string, norm func(string) string) []string {
	t := strings.TrimSpace(v)
	if isSHA256(t) {
		return []string{strings.ToLower(t)}
	}
	n := norm(strings.ToValidUTF8(t, ""))
	if n == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(n))
	return []string{hex.EncodeToString(sum[:])}
}

func isSHA256(s string) bool {
	if len(s) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
