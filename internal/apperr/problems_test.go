package apperr

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestProblemsKeepTwenty: a list keeps the first 20 lines and counts the others, and formats a
// line only while it has room.
func TestProblemsKeepTwenty(t *testing.T) {
	var p Problems
	formatted := 0
	for i := range 60000 {
		if p.Full() {
			p.Add("")
			continue
		}
		formatted++
		p.Addf("cookies.c%d: expected a string, got number %d", i, i)
	}
	shown := p.Invalid("Members have the wrong type.").Shown()
	if formatted != 20 || p.Len() != 60000 || len(shown) != 21 || shown[0] != "cookies.c0: expected a string, got number 0" ||
		shown[20] != "... and 59980 more" {
		t.Fatalf("%d formatted, %d problems, shown %q", formatted, p.Len(), shown)
	}
	if e := Invalid("x", make([]string, 25)...); len(e.Details) != 20 || e.Shown()[20] != "... and 5 more" {
		t.Fatalf("Invalid kept %d lines: %q", len(e.Details), e.Shown())
	}
}

// TestCutLine: a line is at most 200 characters (not bytes), cut with "…".
func TestCutLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want string
	}{
		{"short", "short"},
		{strings.Repeat("a", 200), strings.Repeat("a", 200)},
		{strings.Repeat("a", 201), strings.Repeat("a", 199) + "…"},
		{strings.Repeat("é", 150), strings.Repeat("é", 150)},
		{strings.Repeat("é", 300), strings.Repeat("é", 199) + "…"},
	} {
		if got := CutLine(c.line); got != c.want || utf8.RuneCountInString(got) > MaxDetailLen {
			t.Errorf("CutLine(%d characters) = %d characters %q", utf8.RuneCountInString(c.line), utf8.RuneCountInString(got), got)
		}
	}
	e := Invalid("x", "cookies."+strings.Repeat("k", 5000)+": expected a string, got number 1")
	if n := utf8.RuneCountInString(e.Details[0]); n != MaxDetailLen || !strings.HasSuffix(e.Details[0], "…") {
		t.Fatalf("a %d-character line %q", n, fmt.Sprint(e.Details[0][:20]))
	}
}
