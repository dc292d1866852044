package apperr

import (
	"fmt"
	"unicode/utf8"
)

// MaxDetails is how many detail lines an error keeps (CONTRACT "Hostile input"); the rest are
// only counted. A body with thousands of problems must make neither a long answer nor, while
// they are collected, a large request: collecting stops after the 20th.
const MaxDetails = 20

// MaxDetailLen is the longest detail line, in characters: a longer one (a long member path or
// value) is cut with "…".
const MaxDetailLen = 200

// Problems collects an input's problems: the first MaxDetails lines, each cut to MaxDetailLen,
// and the count of the others. The zero value is empty.
type Problems struct {
	lines []string
	more  int
}

// Full reports whether a further problem is only counted: a caller skips building its line.
func (p *Problems) Full() bool { return len(p.lines) >= MaxDetails }

// Add adds a problem, its line kept while there is room.
func (p *Problems) Add(line string) {
	if p.Full() {
		p.more++
		return
	}
	p.lines = append(p.lines, CutLine(line))
}

// Addf adds a problem whose line is formatted only while there is room.
func (p *Problems) Addf(format string, args ...any) {
	if p.Full() {
		p.more++
		return
	}
	p.Add(fmt.Sprintf(format, args...))
}

// Len is how many problems were added.
func (p *Problems) Len() int { return len(p.lines) + p.more }

// Invalid is the 400 invalid_parameter naming the problems.
func (p *Problems) Invalid(message string) *Error {
	e := Invalid(message, p.lines...)
	e.More += p.more
	return e
}

// Shown is the detail lines an answer shows: the kept ones, then one counting the rest.
func (e *Error) Shown() []string {
	if e.More == 0 {
		return e.Details
	}
	return append(e.Details[:len(e.Details):len(e.Details)], fmt.Sprintf("... and %d more", e.More))
}

// keep cuts details to MaxDetails lines of at most MaxDetailLen characters, and counts the rest.
func keep(details []string) (kept []string, more int) {
	if len(details) > MaxDetails {
		details, more = details[:MaxDetails:MaxDetails], len(details)-MaxDetails
	}
	for i, d := range details {
		if utf8.RuneCountInString(d) > MaxDetailLen {
			if kept == nil {
				kept = append([]string(nil), details...)
			}
			kept[i] = CutLine(d)
		}
	}
	if kept == nil {
		kept = details
	}
	return kept, more
}

// CutLine is line cut to MaxDetailLen characters, the last of them "…" when it was longer.
func CutLine(line string) string {
	if len(line) <= MaxDetailLen || utf8.RuneCountInString(line) <= MaxDetailLen {
		return line
	}
	n := 0
	for i := range line {
		if n == MaxDetailLen-1 {
			return line[:i] + "…"
		}
		n++
	}
	return line
}
