package engine

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"mtk/facts"
)

// Result is the answer of a query.
type Result struct {
	Data     []Row  `json:"data"`
	Currency string `json:"currency"`
	// View is the view the answer counts in: ViewAds or ViewTraffic.
	View     string   `json:"view"`
	Warnings []string `json:"warnings"`
	HasMore  bool     `json:"has_more"`
	// TotalRows, with "total": true, is how many rows the answer has before limit and offset.
	TotalRows *uint64 `json:"total_rows,omitempty"`
	// Time echoes a named range (time.range) as the dates it resolved to.
	Time *Dates `json:"time,omitempty"`
	// CompareTime is the comparison period (time.compare), as Time is written.
	CompareTime *Dates `json:"compare_time,omitempty"`
}

// Dates are a range of local dates as a client sends them: YYYY-MM-DD, End included.
type Dates struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Row is one row of the answer: its keys (date, <level>_id, <level>_name, source) then the asked
// fields, in that order. Values are string or nil for keys; int64 (counts), Money, or *float64
// (nil for null) for fields. The rows of one Result share their Keys slice.
type Row struct {
	Keys   []string
	Values []any
	// Compare, with time.compare, holds the asked fields' values over the comparison period
	// (the last len(Compare) of Keys), nil where the period has no such row.
	Compare []any
}

// Get returns the value of key.
func (r Row) Get(key string) (any, bool) {
	for i, k := range r.Keys {
		if k == key {
			return r.Values[i], true
		}
	}
	return nil, false
}

// MarshalJSON writes the row as an object with its members in order.
func (r Row) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(make([]byte, 0, 32*len(r.Keys)))
}

// AppendJSON appends the row's JSON object to b, as MarshalJSON writes it: the answer's rows go
// out this way without encoding/json's reflection.
func (r Row) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	for i, k := range r.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendJSONValue(b, r.Values[i]); err != nil {
			return nil, err
		}
	}
	if r.Compare != nil {
		return r.appendCompare(b)
	}
	return append(b, '}'), nil
}

// appendCompare appends the row's "compare" and "change" members and closes the row.
func (r Row) appendCompare(b []byte) ([]byte, error) {
	fields := r.Keys[len(r.Keys)-len(r.Compare):]
	values := r.Values[len(r.Values)-len(r.Compare):]
	for _, member := range []string{"compare", "change"} {
		b = append(b, `,"`+member+`":{`...)
		for i, k := range fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			v := r.Compare[i]
			if member == "change" {
				v = change(values[i], r.Compare[i])
			}
			var err error
			if b, err = appendJSONValue(b, v); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendJSONValue appends one value of a row; the kinds a row holds take a direct path, and
// anything else (and a non-finite ratio, which is an error) goes through encoding/json.
func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendJSONString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case Money:
		return appendMoney(b, x), nil
	case *float64:
		if x == nil {
			return append(b, "null"...), nil
		}
		if !math.IsInf(*x, 0) && !math.IsNaN(*x) {
			return appendJSONFloat(b, *x), nil
		}
	}
	j, err := json.Marshal(v)
	return append(b, j...), err
}

// appendMoney appends m as Money.MarshalJSON writes it; an amount already rounded to cents (as
// every computed one is) whose coefficient fits an int64 skips decimal's formatting.
func appendMoney(b []byte, m Money) []byte {
	if m.Exponent() != -2 || m.NumDigits() > 18 {
		return append(b, m.StringFixed(2)...)
	}
	c := m.CoefficientInt64()
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	return append(b, '.', byte('0'+c/10%10), byte('0'+c%10))
}

// appendJSONFloat appends a finite f as encoding/json writes a float64: the shortest decimal
// that reads back as f, in exponent form below 1e-6 and from 1e21 on, with e-07 written e-7.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// appendJSONString appends s quoted: directly when no byte needs escaping, else as
// encoding/json writes it (so the bytes do not depend on the path).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainJSON[s[i]] {
			j, _ := json.Marshal(s)
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON marks the bytes that encoding/json writes as they are in a string: printable ASCII
// but for " \ < > &.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// scanner reads the rows of a plan's statement: one set of scan destinations, filled row after
// row, in the order of plan.outputColumns.
type scanner struct {
	dests     []any
	bucket    time.Time
	source    string
	id, name  string
	dims      []string           // the values of plan.dims
	money     []*decimal.Decimal // per members()[i] when it is money
	fxNull    []uint8            // per members()[i] when it is money: 1 when a rate was missing
	counts    []*int64           // per members()[i] otherwise
	credited  []*float64         // per members()[i] when it is a credited count (plan.creditsCount)
	fxMissing []string
	hasFacts  uint8
	spanDays  []time.Time // with plan.spanCheck: the day spans (Compiled.Spans)
	members   []measure
	sums      sums
	keys      []string
	// lastBucket and lastDate are the previous row's bucket and its text: rows come bucket by
	// bucket.
	lastBucket time.Time
	lastDate   any
	// lastMark is the previous row's granularity mark (nil when it has the asked one), and
	// markedKeys are keys with "granularity" after "date", for the rows that carry one.
	lastMark   any
	markedKeys []string
	boxes      map[string]any
	// slab holds the values of the rows made so far (values).
	slab []any
}

func (p *plan) scanner() *scanner {
	s := &scanner{members: p.measures.members(), sums: newSums()}
	if p.gran != nil {
		s.dests = append(s.dests, &s.bucket)
		s.keys = append(s.keys, "date")
	}
	if p.level != "" {
		s.dests = append(s.dests, &s.source, &s.id, &s.name)
		s.keys = append(s.keys, p.level+"_id", p.level+"_name", "source")
	}
	s.dims = make([]string, len(p.dims))
	for i, d := range p.dims {
		s.dests = append(s.dests, &s.dims[i])
		s.keys = append(s.keys, d.Name)
	}
	for _, m := range p.fields {
		s.keys = append(s.keys, m.Name)
	}
	if p.gran != nil {
		s.markedKeys = append([]string{"date", "granularity"}, s.keys[1:]...)
	}
	s.money, s.counts = make([]*decimal.Decimal, len(s.members)), make([]*int64, len(s.members))
	s.credited = make([]*float64, len(s.members))
	for i, m := range s.members {
		if m.money {
			s.money[i] = new(decimal.Decimal)
			s.dests = append(s.dests, s.money[i])
		} else if p.creditsCount(m) {
			s.credited[i] = new(float64)
			s.dests = append(s.dests, s.credited[i])
		} else {
			s.counts[i] = new(int64)
			s.dests = append(s.dests, s.counts[i])
		}
	}
	if p.measures.anyMoney() {
		s.dests = append(s.dests, &s.fxMissing)
	}
	s.fxNull = make([]uint8, len(s.members))
	for i, m := range s.members {
		if m.money {
			s.dests = append(s.dests, &s.fxNull[i])
		}
	}
	if p.flagFacts {
		s.dests = append(s.dests, &s.hasFacts)
	}
	if p.spanCheck {
		s.dests = append(s.dests, &s.spanDays)
	}
	return s
}

// row builds the answer's row from the scanner's current one.
func (p *plan) row(s *scanner) Row {
	r := Row{Keys: s.keys, Values: s.values(len(s.keys) + 1)}
	if p.gran != nil {
		if !s.bucket.Equal(s.lastBucket) || s.lastDate == nil {
			s.lastDate, s.lastMark = p.bucketLabel(s.bucket)
			s.lastBucket = s.bucket
		}
		r.Values = append(r.Values, s.lastDate)
		if s.lastMark != nil {
			r.Keys = s.markedKeys
			r.Values = append(r.Values, s.lastMark)
		}
	}
	if p.level != "" {
		r.Values = append(r.Values, s.boxed(s.id), s.boxed(s.name), s.boxed(s.source))
	}
	for _, v := range s.dims { // missing (stored as '') is null
		r.Values = append(r.Values, s.boxed(v))
	}
	for i, m := range s.members {
		if m.money {
			s.sums.money[m.index] = *s.money[i]
			s.sums.null[m.index] = s.fxNull[i] != 0
		} else if c := s.credited[i]; c != nil {
			s.sums.counts[m.index], s.sums.credited[m.index] = int64(math.Round(*c*facts.CountUnit)), true
		} else {
			s.sums.counts[m.index] = *s.counts[i]
		}
	}
	noReach := (p.source != "" && p.source != reachSource) || (p.level != "" && s.source != reachSource)
	for _, m := range p.fields {
		if m.reachOnly() && noReach {
			r.Values = append(r.Values, nil)
			continue
		}
		if s.sums.anyNull(m.moneyNeeds) {
			r.Values = append(r.Values, nil)
			continue
		}
		r.Values = append(r.Values, m.value(s.sums))
	}
	return r
}

// values is an empty slice of capacity n for a row's values, cut from a block shared by 64 rows:
// one allocation for them instead of one each.
func (s *scanner) values(n int) []any {
	if cap(s.slab)-len(s.slab) < n {
		s.slab = make([]any, 0, 64*n)
	}
	at := len(s.slab)
	s.slab = s.slab[:at+n]
	return s.slab[at : at : at+n]
}

// boxed is v as a row value (nil for "": missing, such as the source of an event no ad entity
// was linked to), boxed once per answer: rows repeat their entities' ids, names and sources, one
// row per time bucket.
func (s *scanner) boxed(v string) any {
	if v == "" {
		return nil
	}
	if b, ok := s.boxes[v]; ok {
		return b
	}
	if s.boxes == nil {
		s.boxes = map[string]any{}
	}
	var b any = v
	s.boxes[v] = b
	return b
}

// fxWarnings words the currencies whose rate was missing, with the days (missing maps each
// currency to its days, as civil dates) within the local days [first, after) of the range.
func fxWarnings(missing map[string]map[time.Time]bool, target string, first, after time.Time) []string {
	var cs []string
	for c := range missing {
		cs = append(cs, c)
	}
	sort.Strings(cs)
	out := make([]string, len(cs))
	for i, c := range cs {
		var days []time.Time
		for d := range missing[c] {
			days = append(days, d)
		}
		sort.Slice(days, func(a, b int) bool { return days[a].Before(days[b]) })
		when := "on " + spansOf(days).String()
		if spans := spansOf(days); len(spans) == 1 && !spans[0].first.After(first) && !spans[0].after.Before(after) {
			when = "on every day of the range"
		}
		out[i] = "no exchange rate from " + c + " to " + target + " " + when + "; money values that need it are null"
	}
	return out
}
