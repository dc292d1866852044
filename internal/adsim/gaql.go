package adsim

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// A small parser for the Google Ads Query Language subset beta_ads takes:
//
//	SELECT f1, f2, ... FROM resource
//	  [WHERE cond AND cond ...] [ORDER BY f [ASC|DESC], ...] [LIMIT n]
//
// cond is `field op value` with op one of = != > >= < <=, `field [NOT] IN (v, ...)`,
// `field BETWEEN v AND v` or `segments.date DURING TODAY|YESTERDAY|LAST_7_DAYS|LAST_14_DAYS|LAST_30_DAYS`.
// Values are 'quoted' or "quoted" strings, or numbers.

type gaqlQuery struct {
	fields   []string
	resource string
	conds    []gaqlCond
	order    []gaqlOrder
	limit    int // 0: none
}

type gaqlCond struct {
	field string
	op    string // = != > >= < <= IN NOT_IN BETWEEN DURING
	vals  []string
}

type gaqlOrder struct {
	field string
	desc  bool
}

type gaqlToken struct {
	text   string
	quoted bool
}

// gaqlError is a query error with the GAQL reason enum beta reports.
type gaqlError struct {
	reason string
	msg    string
}

func gaqlFail(reason, format string, args ...any) *gaqlError {
	return &gaqlError{reason: reason, msg: fmt.Sprintf(format, args...)}
}

func gaqlLex(q string) ([]gaqlToken, *gaqlError) {
	var toks []gaqlToken
	for i := 0; i < len(q); {
		c := rune(q[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'' || c == '"':
			j := strings.IndexRune(q[i+1:], c)
			if j < 0 {
				return nil, gaqlFail("UNEXPECTED_END_OF_QUERY", "unterminated string at position %d", i)
			}
			toks = append(toks, gaqlToken{text: q[i+1 : i+1+j], quoted: true})
			i += j + 2
		case strings.ContainsRune("(),", c):
			toks = append(toks, gaqlToken{text: string(c)})
			i++
		case strings.ContainsRune("=!<>", c):
			j := i + 1
			if j < len(q) && q[j] == '=' {
				j++
			}
			toks = append(toks, gaqlToken{text: q[i:j]})
			i = j
		case c == '_' || c == '-' || c == '.' || unicode.IsLetter(c) || unicode.IsDigit(c):
			j := i
			for j < len(q) && (q[j] == '_' || q[j] == '-' || q[j] == '.' || unicode.IsLetter(rune(q[j])) || unicode.IsDigit(rune(q[j]))) {
				j++
			}
			toks = append(toks, gaqlToken{text: q[i:j]})
			i = j
		default:
			return nil, gaqlFail("UNEXPECTED_INPUT", "unexpected character %q at position %d", c, i)
		}
	}
	return toks, nil
}

type gaqlParser struct {
	toks []gaqlToken
	pos  int
}

func (p *gaqlParser) peek() string {
	if p.pos >= len(p.toks) || p.toks[p.pos].quoted {
		if p.pos < len(p.toks) {
			return "'"
		}
		return ""
	}
	return strings.ToUpper(p.toks[p.pos].text)
}

func (p *gaqlParser) next() (gaqlToken, bool) {
	if p.pos >= len(p.toks) {
		return gaqlToken{}, false
	}
	p.pos++
	return p.toks[p.pos-1], true
}

func (p *gaqlParser) expect(word string) *gaqlError {
	if p.peek() != word {
		return gaqlFail("EXPECTED_"+strings.ReplaceAll(word, " ", "_"), "expected %s at token %d", word, p.pos+1)
	}
	p.pos++
	return nil
}

// name reads a field or resource name.
func (p *gaqlParser) name() (string, *gaqlError) {
	t, ok := p.next()
	if !ok || t.quoted || !strings.ContainsAny(t.text[:1], "abcdefghijklmnopqrstuvwxyz") {
		return "", gaqlFail("UNRECOGNIZED_FIELD", "expected a field name at token %d", p.pos)
	}
	return t.text, nil
}

// value reads a literal.
func (p *gaqlParser) value() (string, *gaqlError) {
	t, ok := p.next()
	if !ok || (!t.quoted && strings.ContainsAny(t.text, "(),=!<>")) {
		return "", gaqlFail("BAD_VALUE_IN_WHERE_CLAUSE", "expected a value at token %d", p.pos)
	}
	return t.text, nil
}

func parseGAQL(q string) (*gaqlQuery, *gaqlError) {
	toks, err := gaqlLex(q)
	if err != nil {
		return nil, err
	}
	p := &gaqlParser{toks: toks}
	out := &gaqlQuery{}
	if err := p.expect("SELECT"); err != nil {
		return nil, err
	}
	for {
		f, err := p.name()
		if err != nil {
			return nil, err
		}
		out.fields = append(out.fields, f)
		if p.peek() != "," {
			break
		}
		p.pos++
	}
	if err := p.expect("FROM"); err != nil {
		return nil, err
	}
	if out.resource, err = p.name(); err != nil {
		return nil, err
	}
	if p.peek() == "WHERE" {
		p.pos++
		for {
			c, err := p.cond()
			if err != nil {
				return nil, err
			}
			out.conds = append(out.conds, c)
			if p.peek() != "AND" {
				break
			}
			p.pos++
		}
	}
	if p.peek() == "ORDER" {
		p.pos++
		if err := p.expect("BY"); err != nil {
			return nil, err
		}
		for {
			f, err := p.name()
			if err != nil {
				return nil, err
			}
			o := gaqlOrder{field: f}
			if w := p.peek(); w == "ASC" || w == "DESC" {
				o.desc = w == "DESC"
				p.pos++
			}
			out.order = append(out.order, o)
			if p.peek() != "," {
				break
			}
			p.pos++
		}
	}
	if p.peek() == "LIMIT" {
		p.pos++
		t, _ := p.next()
		n, err := strconv.Atoi(t.text)
		if err != nil || n < 1 {
			return nil, gaqlFail("INVALID_VALUE_WITH_LIMIT", "LIMIT must be a positive integer")
		}
		out.limit = n
	}
	if p.pos < len(p.toks) {
		return nil, gaqlFail("UNEXPECTED_INPUT", "unexpected %q at token %d", p.toks[p.pos].text, p.pos+1)
	}
	return out, nil
}

func (p *gaqlParser) cond() (gaqlCond, *gaqlError) {
	f, err := p.name()
	if err != nil {
		return gaqlCond{}, err
	}
	c := gaqlCond{field: f, op: p.peek()}
	p.pos++
	switch c.op {
	case "=", "!=", ">", ">=", "<", "<=":
		v, err := p.value()
		c.vals = []string{v}
		return c, err
	case "BETWEEN":
		lo, err := p.value()
		if err != nil {
			return c, err
		}
		if err := p.expect("AND"); err != nil {
			return c, err
		}
		hi, err := p.value()
		c.vals = []string{lo, hi}
		return c, err
	case "DURING":
		v, err := p.value()
		c.vals = []string{strings.ToUpper(v)}
		return c, err
	case "NOT", "IN":
		if c.op == "NOT" {
			if err := p.expect("IN"); err != nil {
				return c, err
			}
			c.op = "NOT_IN"
		}
		if err := p.expect("("); err != nil {
			return c, err
		}
		for {
			v, err := p.value()
			if err != nil {
				return c, err
			}
			c.vals = append(c.vals, v)
			if p.peek() != "," {
				break
			}
			p.pos++
		}
		return c, p.expect(")")
	}
	return c, gaqlFail("INVALID_OPERATOR", "operator %s is not supported (=, !=, >, >=, <, <=, IN, NOT IN, BETWEEN, DURING)", c.op)
}

// gaqlCompare orders two values: numerically when both are integers, else as strings.
func gaqlCompare(a, b string) int {
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	if err1 == nil && err2 == nil {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(a, b)
}

// match reports whether value v satisfies c.
func (c gaqlCond) match(v string) bool {
	switch c.op {
	case "=":
		return gaqlCompare(v, c.vals[0]) == 0
	case "!=":
		return gaqlCompare(v, c.vals[0]) != 0
	case ">":
		return gaqlCompare(v, c.vals[0]) > 0
	case ">=":
		return gaqlCompare(v, c.vals[0]) >= 0
	case "<":
		return gaqlCompare(v, c.vals[0]) < 0
	case "<=":
		return gaqlCompare(v, c.vals[0]) <= 0
	case "BETWEEN":
		return gaqlCompare(v, c.vals[0]) >= 0 && gaqlCompare(v, c.vals[1]) <= 0
	case "IN", "NOT_IN":
		in := false
		for _, x := range c.vals {
			in = in || gaqlCompare(v, x) == 0
		}
		return in == (c.op == "IN")
	}
	return false
}
