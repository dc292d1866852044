package engine

import (
	"fmt"
	"strings"
)

// fragment is a piece of SQL and the arguments of its placeholders (?), in text order. The
// compiler builds every statement by composing fragments as values, so an argument always
// travels with the text that binds it, whatever order the pieces are built in.
type fragment struct {
	// sql is the text, or for a join the separator between parts.
	sql string
	// args bind the placeholders of sql in order; a fragment among them is written in place of
	// its placeholder, text and arguments.
	args []any
	// parts, for a join, are the fragments written with sql between them.
	parts []fragment
}

// expr is the fragment sql with args, one per placeholder in order: an argument that is a
// fragment stands for its text and arguments, any other binds its placeholder.
func expr(sql string, args ...any) fragment { return fragment{sql: sql, args: args} }

// join is parts written one after another with sep between them.
func join(sep string, parts ...fragment) fragment {
	if len(parts) == 1 {
		return parts[0]
	}
	return fragment{sql: sep, parts: parts}
}

// statement writes the fragment out as a whole statement: text and arguments are laid out once,
// at the end. A placeholder count that does not match is a bug in the compiler, so it panics.
func (f fragment) statement() Statement {
	size, n := f.measure()
	var b strings.Builder
	b.Grow(size)
	args := f.write(&b, make([]any, 0, n))
	return Statement{SQL: b.String(), Args: args}
}

// measure is the length of the fragment's text and its number of arguments, written out.
func (f fragment) measure() (size, n int) {
	if f.parts != nil {
		size = len(f.sql) * (len(f.parts) - 1)
		for _, p := range f.parts {
			s, k := p.measure()
			size, n = size+s, n+k
		}
		return size, n
	}
	size = len(f.sql)
	for _, a := range f.args {
		if g, ok := a.(fragment); ok {
			s, k := g.measure()
			size, n = size+s-1, n+k
		} else {
			n++
		}
	}
	return size, n
}

func (f fragment) write(b *strings.Builder, args []any) []any {
	if f.parts != nil {
		for i, p := range f.parts {
			if i > 0 {
				b.WriteString(f.sql)
			}
			args = p.write(b, args)
		}
		return args
	}
	rest := f.sql
	for _, a := range f.args {
		i := nextPlaceholder(rest)
		if i < 0 {
			panic(fmt.Sprintf("engine: %d arguments for fewer placeholders in %q", len(f.args), f.sql))
		}
		b.WriteString(rest[:i])
		if g, ok := a.(fragment); ok {
			args = g.write(b, args)
		} else {
			b.WriteByte('?')
			args = append(args, a)
		}
		rest = rest[i+1:]
	}
	if nextPlaceholder(rest) >= 0 {
		panic(fmt.Sprintf("engine: %d arguments for more placeholders in %q", len(f.args), f.sql))
	}
	b.WriteString(rest)
	return args
}

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
