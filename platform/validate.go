package platform

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"mtk/internal/apperr"
)

// problems collects one detail line per bad member, in member order. A required member that is
// missing and a member that is wrong are told apart, so that the error carries the contract's
// code: missing_parameter when members are only missing, invalid_parameter otherwise.
type problems struct {
	lines   []string
	invalid bool
}

// missing records that member is required and absent.
func (p *problems) missing(member string) {
	p.lines = append(p.lines, member+": required")
}

// bad records that member is wrong.
func (p *problems) bad(member, format string, args ...any) {
	p.lines = append(p.lines, member+": "+fmt.Sprintf(format, args...))
	p.invalid = true
}

// text checks a required string of at most maxLen characters and returns it trimmed.
func (p *problems) text(member, v string, maxLen int) string {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		p.missing(member)
	case utf8.RuneCountInString(v) > maxLen:
		p.bad(member, "at most %d characters", maxLen)
	case strings.ContainsRune(v, 0):
		p.bad(member, "must not contain NUL characters")
	}
	return v
}

// err is nil when nothing was recorded, else a 400 with message and the detail lines.
func (p *problems) err(message string) error {
	switch {
	case p.invalid:
		return apperr.Invalid(message, p.lines...)
	case len(p.lines) > 0:
		return apperr.Missing(message, p.lines...)
	}
	return nil
}

// hostname is a DNS name of at least two labels, in lower case, without a port or a final dot.
var hostname = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`)

// NormalizeDomain lower-cases and trims a domain and drops a final dot.
func NormalizeDomain(d string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
}

// validHost reports whether h (normalized) is a hostname of at most 253 characters.
func validHost(h string) bool { return len(h) <= 253 && hostname.MatchString(h) }
