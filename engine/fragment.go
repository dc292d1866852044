package engine

import (
	"fmt"
	"strings"
)

// fragment is a piece of SQL and the arguments of its placeholders, in text order. The compiler
// builds every statement by composing fragments as values, so an argument always travels with
// the text that binds it, whatever order the pieces are built in.
type fragment struct {
	sql  string
	args []any
}

// expr is the fragment sql with args, one per placeholder (?) in order. An argument that is a
// fragment is written in place of its placeholder, text and arguments; any other binds it. A
// count that does not match is a bug in the compiler, so it panics.
func expr(sql string, args ...any) fragment {
	nested := false
	for _, a := range args {
		if _, ok := a.(fragment); ok {
			nested = true
			break
		}
	}
	var b strings.Builder
	out := args
	if nested {
		out = make([]any, 0, len(args))
	}
	rest := sql
	for _, a := range args {
		i := nextPlaceholder(rest)
		if i < 0 {
			panic(fmt.Sprintf("engine: %d arguments for fewer placeholders in %q", len(args), sql))
		}
		if !nested {
			rest = rest[i+1:]
			continue
		}
		b.WriteString(rest[:i])
		if f, ok := a.(fragment); ok {
			b.WriteString(f.sql)
			out = append(out, f.args...)
		} else {
			b.WriteByte('?')
			out = append(out, a)
		}
		rest = rest[i+1:]
	}
	if nextPlaceholder(rest) >= 0 {
		panic(fmt.Sprintf("engine: %d arguments for more placeholders in %q", len(args), sql))
	}
	if !nested {
		return fragment{sql: sql, args: args}
	}
	b.WriteString(rest)
	return fragment{sql: b.String(), args: out}
}

// join is parts written one after another with sep between them.
func join(sep string, parts ...fragment) fragment {
	if len(parts) == 1 {
		return parts[0]
	}
	var b strings.Builder
	var args []any
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p.sql)
		args = append(args, p.args...)
	}
	return fragment{sql: b.String(), args: args}
}

// statement is the fragment as a whole statement.
func (f fragment) statement() Statement { return Statement{SQL: f.sql, Args: f.args} }

// nextPlaceholder is the index of the first placeholder in sql, or -1: a ? outside string
// literals, as clickhouse-go reads them (a backslash escapes the next character in a literal).
func nextPlaceholder(sql string) int {
	quoted := false
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '\\' && quoted:
			i++
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			return i
		}
	}
	return -1
}
