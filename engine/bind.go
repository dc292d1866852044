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
	next, quoted := 0, false
	for i := 0; i < len(st.SQL); i++ {
		c := st.SQL[i]
		switch {
		case c == '\\' && quoted && i+1 < len(st.SQL):
			b.WriteByte(c)
			i++
			c = st.SQL[i]
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			if next == len(st.Args) {
				return "", fmt.Errorf("engine: bind: more placeholders than the %d arguments", len(st.Args))
			}
			v, err := literal(st.Args[next])
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			next++
			continue
		}
		b.WriteByte(c)
	}
	if next != len(st.Args) {
		return "", fmt.Errorf("engine: bind: %d arguments for %d placeholders", len(st.Args), next)
	}
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
