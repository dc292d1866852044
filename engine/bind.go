package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Bind is st's SQL with its arguments written in, the values ClickHouse reads as clickhouse-go
// binds them on the native protocol (quote): the text the HTTP reader sends (Options.HTTP), and
// the conformance test to current ClickHouse, which has no driver here.
func Bind(st Statement) (string, error) {
	var b strings.Builder
	rest := st.SQL
	for _, a := range st.Args {
		i := nextPlaceholder(rest)
		if i < 0 {
			return "", fmt.Errorf("engine: bind: %d arguments for fewer placeholders", len(st.Args))
		}
		v, err := literal(a)
		if err != nil {
			return "", err
		}
		b.WriteString(rest[:i])
		b.WriteString(v)
		rest = rest[i+1:]
	}
	if nextPlaceholder(rest) >= 0 {
		return "", fmt.Errorf("engine: bind: %d arguments for more placeholders", len(st.Args))
	}
	b.WriteString(rest)
	return b.String(), nil
}

// quote is s as a string literal: \ and ' escaped as clickhouse-go escapes them, and every
// control byte and every byte of invalid UTF-8 as \xHH (read back as the same byte by 18.16 and
// current ClickHouse alike), so that the statement's text is valid UTF-8 whatever the value.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteByte(s[i])
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, `\x%02X`, s[i])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// literal is one argument as SQL: the kinds the compiler binds.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return quote(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64: // metric filter values are finite (validated)
		return "cast(" + strconv.FormatFloat(x, 'g', -1, 64) + ", 'Float64')", nil
	case time.Time:
		return "toDateTime('" + x.UTC().Format(time.DateTime) + "', 'UTC')", nil
	case clickhouse.GroupSet:
		parts := make([]string, len(x.Value))
		for i, e := range x.Value {
			s, err := literal(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "(" + strings.Join(parts, ", ") + ")", nil
	}
	return "", fmt.Errorf("engine: bind: no literal for %T", v)
}
