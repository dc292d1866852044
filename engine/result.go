package engine

import (
	"bytes"
	"encoding/json"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// Result is the answer of a query.
type Result struct {
	Data     []Row    `json:"data"`
	Currency string   `json:"currency"`
	Warnings []string `json:"warnings"`
	HasMore  bool     `json:"has_more"`
}

// Row is one row of the answer: its keys (date, <level>_id, <level>_name, source) then the asked
// fields, in that order. Values are string or nil for keys; int64 (counts), Money, or *float64
// (nil for null) for fields.
type Row struct {
	Keys   []string
	Values []any
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

func (r *Row) set(key string, v any) {
	r.Keys = append(r.Keys, key)
	r.Values = append(r.Values, v)
}

// MarshalJSON writes the row as an object with its members in order.
func (r Row) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range r.Keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(r.Values[i])
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// scanned is one row as read from ClickHouse.
type scanned struct {
	bucket    time.Time
	source    string
	id, name  string
	money     map[string]*decimal.Decimal
	counts    map[string]*int64
	fxMissing []string
}

// dests are the scan destinations in the order of plan.outputColumns.
func (p *plan) dests(s *scanned) []any {
	var d []any
	if p.gran != nil {
		d = append(d, &s.bucket)
	}
	if p.level != "" {
		d = append(d, &s.source, &s.id, &s.name)
	}
	s.money, s.counts = map[string]*decimal.Decimal{}, map[string]*int64{}
	for _, m := range p.measures.members() {
		if m.money {
			v := new(decimal.Decimal)
			s.money[m.name] = v
			d = append(d, v)
		} else {
			v := new(int64)
			s.counts[m.name] = v
			d = append(d, v)
		}
	}
	if p.measures.anyMoney() {
		d = append(d, &s.fxMissing)
	}
	return d
}

// row builds the answer's row from a scanned one.
func (p *plan) row(s *scanned) Row {
	var r Row
	if p.gran != nil {
		if p.gran.dayBased {
			r.set("date", s.bucket.Format("2006-01-02"))
		} else {
			r.set("date", s.bucket.In(p.loc).Format(time.RFC3339))
		}
	}
	if p.level != "" {
		r.set(p.level+"_id", nullIfEmpty(s.id))
		r.set(p.level+"_name", nullIfEmpty(s.name))
		r.set("source", s.source)
	}
	sm := sums{}
	for k, v := range s.money {
		sm[k] = *v
	}
	for k, v := range s.counts {
		sm[k] = decimal.NewFromInt(*v)
	}
	noReach := (p.source != "" && p.source != reachSource) || (p.level != "" && s.source != reachSource)
	for _, m := range p.fields {
		if m.reachOnly() && noReach {
			r.set(m.Name, nil)
			continue
		}
		r.set(m.Name, m.value(sm))
	}
	return r
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// fxWarnings words the currencies that lacked a rate on some day.
func fxWarnings(missing map[string]bool, target string) []string {
	var cs []string
	for c := range missing {
		cs = append(cs, c)
	}
	sort.Strings(cs)
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = "no exchange rate from " + c + " to " + target + " for some days of the range; amounts in " + c +
			" on those days are left out of money values"
	}
	return out
}
