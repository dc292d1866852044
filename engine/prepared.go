package engine

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"
)

// Prepared is a query validated and compiled for its project, ready to Run, with what identifies
// its answer: the answer cache keys answers by Key and the data version of Days.
type Prepared struct {
	c     *Compiled
	key   string
	start time.Time // when Prepare began, for Options.Observe
}

// Key identifies the query's answer, data aside: two queries share a key only when their answers
// are the same for the same data. It is the hash of the scope, the query with its time range
// resolved to instants (so that "2024-03-01" and "2024-03-01T00:00:00" in the project's zone
// share), and the compiled statements with their warnings.
func (p *Prepared) Key() string { return p.key }

// Days are the local days [first, after) (civil dates) whose data the answer reads: every table,
// probe and day span of the query reads inside them.
func (p *Prepared) Days() (first, after time.Time) {
	return dayRange(p.c.plan.start, p.c.plan.end, p.c.plan.loc)
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
	}
	fmt.Fprintf(h, "%s %q\n", c.Currency, c.Warnings)
	return string(h.Sum(nil)), nil
}
