// Package marker hides a tracking-link click id in a chat message as invisible characters, and
// finds it again in the message the visitor sends.
//
// # Format
//
// A marker is 49 invisible characters (147 bytes of UTF-8):
//
//	U+2060 | 41 id digits | 6 checksum digits | U+2060
//
// U+2060 (WORD JOINER) is the sentinel at both ends. Digits are base 3, most significant first:
// U+200B (ZERO WIDTH SPACE) = 0, U+200C (ZERO WIDTH NON-JOINER) = 1, U+200D (ZERO WIDTH JOINER) =
// 2. The id is the click id, a uint64, always written with 41 digits (3^41 > 2^64); the checksum
// is CRC-8 (polynomial 0x07, initial value 0, the SMBus CRC-8) over the id's 8 bytes, big-endian,
// written with 6 digits. The fixed length makes a truncated marker plainly invalid.
//
// U+FEFF is left out on purpose: at the start of a text it reads as a byte order mark, and
// JavaScript's trim() removes it at either end. The joiners sit only between the sentinels, so
// they never touch the visible text (no emoji sequence or Arabic shaping is changed).
//
// # Rules
//
//   - Embed appends the marker to the end of the text, after removing any valid marker the text
//     already holds, so the embedded id is the one Decode finds.
//   - Decode finds markers anywhere: at the start, in the middle, at the end, next to emoji, RTL
//     text or line breaks. A marker whose digits are not exactly 41+6 digit characters between
//     two sentinels, whose id overflows a uint64, or whose checksum does not match is not a
//     marker: the text is not tracked by it and it is left in place.
//   - When a text holds several valid markers, the first one wins; all valid markers are removed
//     from the cleaned text. A text without a valid marker is returned unchanged (the spec: an
//     untracked message has decoded_text equal to text).
//   - Text that is not valid UTF-8 is handled bytewise and never altered outside the markers.
package marker

import (
	"math"
	"strings"
)

const (
	sentinel = "\u2060"
	// base is the number of digit characters.
	base = 3
	// idDigits is the number of base-3 digits that hold any uint64.
	idDigits = 41
	// sumDigits is the number of base-3 digits that hold any CRC-8.
	sumDigits = 6
	// runeLen is the UTF-8 length of every sentinel and digit character.
	runeLen = 3
	// markerLen is a marker's length in bytes.
	markerLen = (2 + idDigits + sumDigits) * runeLen
)

// digits are the characters for 0, 1 and 2.
var digits = [base]string{"\u200b", "\u200c", "\u200d"}

// Encode returns the invisible marker for id.
func Encode(id uint64) string {
	var b strings.Builder
	b.Grow(markerLen)
	b.WriteString(sentinel)
	writeDigits(&b, id, idDigits)
	writeDigits(&b, uint64(checksum(id)), sumDigits)
	b.WriteString(sentinel)
	return b.String()
}

// writeDigits writes v as exactly n base-3 digits, most significant first.
func writeDigits(b *strings.Builder, v uint64, n int) {
	var d [idDigits]byte
	for i := n - 1; i >= 0; i-- {
		d[i] = byte(v % base)
		v /= base
	}
	for _, x := range d[:n] {
		b.WriteString(digits[x])
	}
}

// Embed returns text with the marker for id at its end, after removing any valid marker that
// text already holds.
func Embed(text string, id uint64) string {
	_, cleaned, _ := Decode(text)
	return cleaned + Encode(id)
}

// Decode finds the first valid marker in text. It returns its id, the text without any valid
// marker, and true; or 0, text unchanged and false when text holds no valid marker.
func Decode(text string) (id uint64, cleaned string, ok bool) {
	var b strings.Builder
	copied := 0 // text[:copied] has been written to b, markers excepted
	for at := 0; ; {
		i := strings.Index(text[at:], sentinel)
		if i < 0 {
			break
		}
		start := at + i
		v, valid := parse(text[start:])
		if !valid {
			at = start + len(sentinel)
			continue
		}
		if !ok {
			id, ok = v, true
			b.Grow(len(text) - markerLen)
		}
		b.WriteString(text[copied:start])
		copied = start + markerLen
		at = copied
	}
	if !ok {
		return 0, text, false
	}
	b.WriteString(text[copied:])
	return id, b.String(), true
}

// parse reads a marker at the start of s.
func parse(s string) (uint64, bool) {
	if len(s) < markerLen || !strings.HasPrefix(s, sentinel) || s[markerLen-runeLen:markerLen] != sentinel {
		return 0, false
	}
	pos := len(sentinel)
	next := func() (uint64, bool) {
		c := s[pos : pos+runeLen]
		pos += runeLen
		for d, digit := range digits {
			if c == digit {
				return uint64(d), true
			}
		}
		return 0, false
	}
	var id uint64
	for range idDigits {
		d, ok := next()
		if !ok || id > (math.MaxUint64-d)/base {
			return 0, false
		}
		id = id*base + d
	}
	var sum uint64
	for range sumDigits {
		d, ok := next()
		if !ok {
			return 0, false
		}
		sum = sum*base + d
	}
	return id, sum == uint64(checksum(id))
}
