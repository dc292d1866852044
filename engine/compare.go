package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// The comparison modes of time.compare besides an explicit {start, end}.
const (
	ComparePreviousPeriod = "previous_period"
	ComparePreviousYear   = "previous_year"
)

// CompareModes are the names time.compare takes (GET /v3/fields lists them).
var CompareModes = []string{ComparePreviousPeriod, ComparePreviousYear}

// Compare is time.compare: a mode, or a period of its own given as time bounds are.
type Compare struct {
	Mode       string
	Start, End string
}

// UnmarshalJSON reads "previous_period", "previous_year" or {"start": ..., "end": ...}.
func (c *Compare) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &c.Mode)
	}
	var period struct {
		Start string `json:"start"`
		End   string `json:"end"`
	}
	if len(b) == 0 || b[0] != '{' { // the decoder names the member in a type error
		return &json.UnmarshalTypeError{Value: jsonValueKind(b), Type: reflect.TypeFor[Compare]()}
	}
	if err := json.Unmarshal(b, &period); err != nil {
		return err
	}
	c.Start, c.End = period.Start, period.End
	return nil
}

// jsonValueKind names the kind of the JSON value b, as json.UnmarshalTypeError does.
func jsonValueKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "nothing"
	case b[0] == '[':
		return "array"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	case b[0] == 'n':
		return "null"
	}
	return "number"
}

// MarshalJSON writes the mode as a string, a period as an object.
func (c Compare) MarshalJSON() ([]byte, error) {
	if c.Mode != "" {
		return json.Marshal(c.Mode)
	}
	return json.Marshal(map[string]string{"start": c.Start, "end": c.End})
}

// validate adds the problems of a comparison.
func (c *Compare) validate(p, missing *problems) {
	switch {
	case c.Mode != "":
		if c.Mode != ComparePreviousPeriod && c.Mode != ComparePreviousYear {
			p.add("time.compare: unknown comparison %q; want %s, %s or {start, end}", c.Mode, ComparePreviousPeriod, ComparePreviousYear)
		}
	default:
		for _, b := range []struct{ name, value string }{{"start", c.Start}, {"end", c.End}} {
			if b.value == "" {
				missing.add("time.compare.%s: required", b.name)
			} else if _, _, ok := parseBound(b.value, time.UTC); !ok {
				p.add("time.compare.%s: want YYYY-MM-DD or an ISO 8601 date-time, got %q", b.name, b.value)
			}
		}
	}
}

// members names the members that set the comparison's start and end.
func (c *Compare) members() [2]string {
	if c.Mode != "" {
		return [2]string{"time.compare", "time.compare"}
	}
	return [2]string{"time.compare.start", "time.compare.end"}
}

// compareRange is the comparison period of the range [start, end) in loc. previous_period is
// the same length just before: as many local days when the range is whole days, else the same
// duration. previous_year is the same local dates and times a year earlier (29 February becomes
// the 28th); weekdays do not line up.
func compareRange(c *Compare, start, end time.Time, loc *time.Location) (time.Time, time.Time) {
	switch c.Mode {
	case ComparePreviousPeriod:
		if dayAligned(start, loc) && dayAligned(end, loc) {
			first, after := dayRange(start, end, loc)
			days := int(after.Sub(first).Hours()/24 + 0.5)
			return DayStart(first.AddDate(0, 0, -days), loc).UTC(), start
		}
		return start.Add(-end.Sub(start)), start
	case ComparePreviousYear:
		return yearEarlier(start, loc), yearEarlier(end, loc)
	}
	return resolveRange(&TimeSpec{Start: c.Start, End: c.End}, loc, time.Time{})
}

// yearEarlier is t's local date and time one year earlier.
func yearEarlier(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	y, m, d := l.Date()
	if m == time.February && d == 29 {
		d = 28
	}
	if dayAligned(t, loc) {
		return DayStart(time.Date(y-1, m, d, 0, 0, 0, 0, time.UTC), loc).UTC()
	}
	return time.Date(y-1, m, d, l.Hour(), l.Minute(), l.Second(), 0, loc).UTC()
}

// rangeLabel writes [start, end) as a client would send it: dates (end included) when both are
// local midnights, else RFC 3339 instants in the project's offset (end excluded).
func rangeLabel(start, end time.Time, loc *time.Location) *Dates {
	if dayAligned(start, loc) && dayAligned(end, loc) {
		first, after := dayRange(start, end, loc)
		return &Dates{Start: first.Format(time.DateOnly), End: after.AddDate(0, 0, -1).Format(time.DateOnly)}
	}
	return &Dates{Start: start.In(loc).Format(time.RFC3339), End: end.In(loc).Format(time.RFC3339)}
}

// compareInput is the query of the comparison period: the same query over [start, end),
// unpaged and unordered (its rows are found by key), without a comparison of its own.
func compareInput(in QueryInput, start, end time.Time) QueryInput {
	out := in
	t := *in.Time
	t.Start, t.End, t.Range, t.Compare = start.Format(time.RFC3339), end.Format(time.RFC3339), "", nil
	out.Time = &t
	all := MaxLimit
	out.Limit, out.Offset, out.Order, out.Total = &all, nil, nil, false
	return out
}

// withCompare returns rows of main each carrying the values of its comparison row: the bucket
// at the same position among the period's buckets and the same entity. Rows without one compare
// with nulls. main's rows are shared (single flight), so they are copied.
func withCompare(main, cmp []Row, fields int) []Row {
	mainPos, cmpPos := bucketPositions(main), bucketPositions(cmp)
	byKey := make(map[string]Row, len(cmp))
	for _, r := range cmp {
		byKey[pairKey(r, cmpPos)] = r
	}
	out := make([]Row, len(main))
	for i, r := range main {
		out[i] = r
		out[i].Compare = make([]any, fields)
		if c, ok := byKey[pairKey(r, mainPos)]; ok {
			copy(out[i].Compare, c.Values[len(c.Values)-fields:])
		}
	}
	return out
}

// bucketPositions numbers the distinct dates of rows in time order.
func bucketPositions(rows []Row) map[string]int {
	var dates []string
	seen := map[string]bool{}
	for _, r := range rows {
		if d, ok := r.Get("date"); ok && !seen[d.(string)] {
			seen[d.(string)] = true
			dates = append(dates, d.(string))
		}
	}
	sort.Slice(dates, func(i, j int) bool { return bucketTime(dates[i]).Before(bucketTime(dates[j])) })
	pos := make(map[string]int, len(dates))
	for i, d := range dates {
		pos[d] = i
	}
	return pos
}

// bucketTime reads a row's date: YYYY-MM-DD, or RFC 3339 below a day.
func bucketTime(s string) time.Time {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t
	}
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// pairKey is what pairs a row with its comparison: its bucket's position and its entity.
func pairKey(r Row, pos map[string]int) string {
	key := ""
	for i, k := range r.Keys {
		switch {
		case k == "date":
			key += fmt.Sprintf("%d|", pos[r.Values[i].(string)])
		case k == "source" || (len(k) > 3 && k[len(k)-3:] == "_id") || isBusinessDimension(k):
			key += fmt.Sprintf("%v|", r.Values[i])
		}
	}
	return key
}

// change is (value - compare) / |compare|, nil when either is null or compare is 0. Money and
// counts are exact decimals until the ratio.
func change(value, compare any) *float64 {
	v, ok1 := asDecimal(value)
	c, ok2 := asDecimal(compare)
	if !ok1 || !ok2 || c.IsZero() {
		return nil
	}
	f, _ := v.Sub(c).Div(c.Abs()).Float64()
	return &f
}

func asDecimal(v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case int64:
		return decimal.NewFromInt(x), true
	case Money:
		return x.Decimal, true
	case *float64:
		if x == nil {
			return decimal.Decimal{}, false
		}
		return decimal.NewFromFloat(*x), true
	}
	return decimal.Decimal{}, false
}
