package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"mtk/facts"
)

// Prepared is a query validated and compiled for its project, ready to Run, with what identifies
// its answer: the answer cache keys answers by Key and the data version of Days.
type Prepared struct {
	c *Compiled
	// cmp is the comparison period's query (time.compare), nil without one.
	cmp   *Compiled
	key   string
	start time.Time // when Prepare began, for Options.Observe
}

// DayRange is a run of local days [First, After), as civil dates.
type DayRange struct{ First, After time.Time }

// Key identifies the query's answer, data aside: two queries share a key only when their answers
// are the same for the same data. It is the hash of the scope, the query with its time range
// resolved to instants (so that "2024-03-01" and "2024-03-01T00:00:00" in the project's zone
// share), and the compiled statements with their warnings.
func (p *Prepared) Key() string { return p.key }

// At is the query read at a data version of its Days (facts.Versions): its Key holds the version,
// so that its answer is kept under it and it shares a run (single flight) only with callers that
// read the same version: a run begun before a write landed must not answer a caller who knows of
// the write.
func (p *Prepared) At(v facts.Version) *Prepared {
	q := *p
	var b [64]byte // a key and a version on the stack: the string is the one allocation
	q.key = string(binary.BigEndian.AppendUint64(append(b[:0], p.key...), uint64(v)))
	return &q
}

// Days are the local days whose data the answer reads: every table, probe and day span of the
// query (and of its comparison period) reads inside them.
func (p *Prepared) Days() []DayRange { return p.AppendDays(nil) }

// AppendDays appends the Days to dst: a caller at every request passes an array on its stack.
func (p *Prepared) AppendDays(dst []DayRange) []DayRange {
	dst = append(dst, p.c.days())
	if p.cmp != nil {
		dst = append(dst, p.cmp.days())
	}
	return dst
}

// days are the local days of the range. Credits sit on their own days (the order's, or by click
// date the touch's), so a model's answer reads no day outside the range either.
func (c *Compiled) days() DayRange {
	first, after := dayRange(c.plan.start, c.plan.end, c.plan.loc)
	return DayRange{first, after}
}

// answerKey is Prepared.Key.
func answerKey(scope Scope, in QueryInput, c *Compiled) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	if err := enc.Encode(scope); err != nil {
		return "", err
	}
	resolved := in
	resolved.Time = &TimeSpec{Start: c.plan.start.Format(time.RFC3339), End: c.plan.end.Format(time.RFC3339),
		Granularity: in.granularity()}
	if in.Time != nil { // a named range's answer echoes its dates: it is not the explicit range's
		resolved.Time.Range = in.Time.Range
	}
	if err := enc.Encode(resolved); err != nil {
		return "", err
	}
	write := func(st *Statement) {
		if st != nil {
			fmt.Fprintf(h, "%q %#v\n", st.SQL, st.Args)
		}
	}
	write(c.Spans)
	for _, a := range c.Attempts {
		fmt.Fprintf(h, "%s %q\n", a.Table, a.Warnings)
		write(a.Probe)
		write(&a.Query)
		write(a.OneCurrency)
		write(a.Lean)
		write(a.Total)
		write(a.Overlap)
	}
	fmt.Fprintf(h, "%s %q\n", c.Currency, c.Warnings)
	return string(h.Sum(nil)), nil
}
