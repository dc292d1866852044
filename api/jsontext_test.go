package api

import (
	"slices"
	"strings"
	"testing"

	"mtk/internal/apperr"
)

// TestJSONTextProblems: the walk names every string that is not text, by its path, and nothing
// else; the fast check lets clean bodies through without a walk.
func TestJSONTextProblems(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"lead":{"email":"a\u0000@x.com"}}`, []string{"lead.email: contains a NUL character"}},
		{`{"properties":{"a":{"b":["x","y","\ud800"]}}}`, []string{"properties.a.b[2]: contains an unpaired UTF-16 surrogate escape"}},
		{"{\"utm\":{\"utm_source\":\"\xff\"}}", []string{"utm.utm_source: is not valid UTF-8"}},
		{`{"a\u0000b":1}`, []string{"a\uFFFDb: its name contains a NUL character"}},
		{`[{"x":"\udc00"},{"x":"ok","y":["\u0000"]}]`, []string{"[0].x: contains an unpaired UTF-16 surrogate escape", "[1].y[0]: contains a NUL character"}},
		{`"\u0000"`, []string{"body: contains a NUL character"}},
		{"{\"a\":1}\xff", []string{"body: is not valid UTF-8"}},
		{`{"a":"\ud83d\ude00","b":"\\u0000","c":"\ufffd"}`, nil}, // a pair, an escaped backslash, U+FFFD itself
		{`{"a":"\u0000`, nil}, // malformed: decoding refuses it
		{`{"` + strings.Repeat("k", 100) + `":"\u0000"}`, []string{strings.Repeat("k", 64) + "…: contains a NUL character"}},
	} {
		var problems apperr.Problems
		jsonTextProblems([]byte(tc.body), &problems)
		if got := problems.Invalid("").Details; !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.body, got, tc.want)
		}
	}
	for body, suspect := range map[string]bool{
		`{"a":"plain","b":"é","c":"\n\u00e9"}`: false,
		`{"a":"\u0000"}`:                       true, `{"a":"\uD800"}`: true, `{"a":"\udfff"}`: true, "{\"a\":\"\x00\"}": true, "\xc3": true,
	} {
		if jsonTextSuspect([]byte(body)) != suspect {
			t.Errorf("jsonTextSuspect(%q) = %v", body, !suspect)
		}
	}
}
