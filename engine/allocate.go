package engine

import "github.com/shopspring/decimal"

// Rounding each row to cents on its own makes a chart's buckets miss its total by a few cents
// (each row is off by up to half a cent). So the money that adds up (Metric.exact) of a first
// page is rounded cumulatively: a row shows the rounded running total of the exact amounts up
// to it, less the rounded running total before it. The rows of a whole answer then add up to its
// rounded total, which is the answer without granularity or level, to the cent; every row stays
// within a cent of its exact amount; and a first page is the head of the whole answer, value for
// value. A later page (offset > 0) lacks the running total before it and rounds row by row.

// exacts keeps, row by row, the exact amounts of the additive money fields of a plan's answer.
type exacts struct {
	fields []int // indexes into plan.fields of the additive money fields
	rows   [][]decimal.Decimal
}

func newExacts(p *plan) *exacts {
	e := &exacts{}
	for i, m := range p.fields {
		if m.exact != nil {
			e.fields = append(e.fields, i)
		}
	}
	return e
}

// keep records the row's exact amounts (micros) from its sums.
func (e *exacts) keep(p *plan, s sums) {
	if len(e.fields) == 0 {
		return
	}
	row := make([]decimal.Decimal, len(e.fields))
	for j, i := range e.fields {
		row[j] = p.fields[i].exact(s)
	}
	e.rows = append(e.rows, row)
}

// allocate rounds each additive money field of rows, the answer's first rows, cumulatively. A
// field with a null value in some row is left as it is.
func (e *exacts) allocate(p *plan, rows []Row) {
	for j, i := range e.fields {
		at := func(r Row) int { return len(r.Keys) - len(p.fields) + i }
		complete := true
		for _, r := range rows {
			if _, ok := r.Values[at(r)].(Money); !ok {
				complete = false
			}
		}
		if !complete {
			continue
		}
		var running, shown decimal.Decimal // the exact running total (micros), the rounded one (cents)
		for k, r := range rows {
			running = running.Add(e.rows[k][j])
			next := cents(running, 1, -6, one)
			r.Values[at(r)] = Money{next.Sub(shown)}
			shown = next
		}
	}
}
