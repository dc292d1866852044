package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Bind is st's SQL with its arguments written in as clickhouse-go binds them on the client
// (quoting and escaping as it does): the text ClickHouse receives. The conformance test sends it
// to current ClickHouse, which has no driver here.
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

// quoteReplacer escapes a string literal as clickhouse-go does.
var quoteReplacer = strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`)

// literal is one argument as SQL: the kinds the compiler binds.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return "'" + quoteReplacer.Replace(x) + "'", nil
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
