package api

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"mtk/internal/apperr"
)

// The reasons a text value is refused, as detail lines say them.
const (
	reasonNUL       = "contains a NUL character"
	reasonUTF8      = "is not valid UTF-8"
	reasonSurrogate = "contains an unpaired UTF-16 surrogate escape"
)

// textReason is why s may not be stored as text, or "" when it may.
func textReason(s []byte) string {
	switch {
	case bytes.IndexByte(s, 0) >= 0:
		return reasonNUL
	case !utf8.Valid(s):
		return reasonUTF8
	}
	return ""
}

// jsonTextSuspect reports whether a JSON body may hold a string that is not text: a NUL byte or
// invalid UTF-8 anywhere, or a \u0000 or surrogate escape. It is a few linear scans without
// allocation, which is all that clean bodies, nearly all of them, cost; a suspect body is walked
// by jsonTextProblems.
func jsonTextSuspect(body []byte) bool {
	if textReason(body) != "" {
		return true
	}
	for rest := body; ; {
		i := bytes.Index(rest, []byte(`\u`))
		if i < 0 || len(rest) < i+6 {
			return false
		}
		hex := rest[i+2 : i+6]
		if string(hex) == "0000" || (hex[0]|0x20 == 'd' && strings.IndexByte("89abcdefABCDEF", hex[1]) >= 0) {
			return true
		}
		rest = rest[i+2:]
	}
}

// maxTextDepth bounds the nesting jsonTextProblems follows, as encoding/json does (deeper bodies
// are refused by decoding anyway).
const maxTextDepth = 10000

// jsonFrame is an object or array that jsonTextProblems is inside.
type jsonFrame struct {
	array   bool
	index   int    // the array's element
	key     string // the object's member, printable
	wantKey bool   // the object's next string is a member name
}

// jsonTextProblems adds every string of a JSON body, member names too, that holds a NUL
// character, invalid UTF-8 or an unpaired surrogate escape: one detail line each, such as
// "lead.email: contains a NUL character" or "properties.a.b[2]: is not valid UTF-8". It reads
// the raw bytes because encoding/json hides those problems: it turns invalid UTF-8 and unpaired
// surrogates into U+FFFD and decodes \u0000 into NUL. Malformed JSON ends the walk (decoding
// reports it); a problem outside any string is named "body".
func jsonTextProblems(body []byte, problems *apperr.Problems) {
	found := problems.Len()
	var stack []jsonFrame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.array:
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			case b.Len() > 0:
				b.WriteString("." + f.key)
			default:
				b.WriteString(f.key)
			}
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	// add adds a problem at the walk's path, naming the path only while the list has room.
	add := func(what string) {
		if problems.Full() {
			problems.Add("")
			return
		}
		problems.Add(path() + what)
	}
walk:
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '{', '[':
			if len(stack) == maxTextDepth {
				break walk
			}
			stack = append(stack, jsonFrame{array: body[i] == '[', wantKey: body[i] == '{'})
		case '}', ']':
			if len(stack) == 0 {
				break walk
			}
			stack = stack[:len(stack)-1]
		case ',':
			if n := len(stack); n > 0 && stack[n-1].array {
				stack[n-1].index++
			} else if n > 0 {
				stack[n-1].wantKey = true
			}
		case '"':
			end, reason, ok := scanJSONString(body, i)
			if !ok {
				break walk
			}
			raw := body[i : end+1]
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = printableKey(raw), false
				if reason != "" {
					add(": its name " + reason)
				}
			} else if reason != "" {
				add(": " + reason)
			}
			i = end
		}
	}
	if problems.Len() == found {
		if reason := textReason(body); reason != "" {
			problems.Add("body: " + reason)
		}
	}
}

// scanJSONString reads the string that starts at body[start] (a quote): the index of its closing
// quote and why it is not text ("" when it is); ok is false when it never ends.
func scanJSONString(body []byte, start int) (end int, reason string, ok bool) {
	nul, surrogate := false, false
	for i := start + 1; i < len(body); i++ {
		switch body[i] {
		case 0:
			nul = true
		case '"':
			switch span := body[start+1 : i]; {
			case nul:
				return i, reasonNUL, true
			case !utf8.Valid(span):
				return i, reasonUTF8, true
			case surrogate:
				return i, reasonSurrogate, true
			}
			return i, "", true
		case '\\':
			if i+1 < len(body) && body[i+1] == 'u' {
				r, next := escapedRune(body, i)
				nul = nul || r == 0
				surrogate = surrogate || r == unpaired
				i = next - 1
				continue
			}
			i++ // the escaped character
		}
	}
	return 0, "", false
}

// unpaired is escapedRune's answer for a surrogate escape without its other half.
const unpaired rune = -1

// escapedRune decodes the \uXXXX escape at body[i] (with its low half when it is a surrogate
// pair): the rune, unpaired for an unpaired surrogate, and the index after it. Bad hex is
// left to decoding, which refuses it: the rune is then a space.
func escapedRune(body []byte, i int) (rune, int) {
	hi, ok := hex4(body, i+2)
	if !ok {
		return ' ', i + 2
	}
	switch {
	case hi >= 0xDC00 && hi <= 0xDFFF:
		return unpaired, i + 6
	case hi >= 0xD800 && hi <= 0xDBFF:
		if i+7 < len(body) && body[i+6] == '\\' && body[i+7] == 'u' {
			if lo, ok := hex4(body, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00), i + 12
			}
		}
		return unpaired, i + 6
	}
	return hi, i + 6
}

// hex4 reads the four hex digits at body[i].
func hex4(body []byte, i int) (rune, bool) {
	if i+4 > len(body) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(body[i:i+4]), 16, 16)
	return rune(v), err == nil
}

// printableKey is a member name as a detail line shows it (printable), decoded.
func printableKey(raw []byte) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(raw[1 : len(raw)-1])
	}
	return printable([]byte(s))
}
