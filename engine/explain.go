package engine

import (
	"context"
	"time"
)

// Explanation is what POST /v3/query/explain answers: how the query would be answered, without
// running its answer statement.
type Explanation struct {
	// Plan is the range cut into the parts each table answers, in time order.
	Plan []PlanPart `json:"plan"`
	// SQL are the statements that answer, as ClickHouse receives them (values bound): the
	// answer's (its one-currency form first when it has one: the converting one runs only when
	// money in another currency shows), then the total_rows count; the comparison period's
	// follow. A query with day spans reads them in its first statement: when there are some, that
	// statement comes first, then those that answer with them.
	SQL []string `json:"sql"`
	// Warnings are those the answer would carry.
	Warnings []string `json:"warnings"`
	// View is the view the answer counts in: ViewAds or ViewTraffic.
	View string `json:"view"`
	// Attribution is the model, window and date order metrics are credited by.
	Attribution AttributionUsed `json:"attribution"`
	// Cache is "hit" or "miss" (whether the answer cache, this replica's or the shared tier,
	// holds the answer now) or "off"; the API sets it.
	Cache string `json:"cache"`
	// Source is where the answer would come from now: "memory" (this replica's answer cache),
	// "shared" (the replicas' shared tier) or "clickhouse"; the API sets it.
	Source string `json:"source"`
}

// PlanPart is a part of the range and how it is answered.
type PlanPart struct {
	Start       string  `json:"start"`
	End         string  `json:"end"`
	Table       string  `json:"table"`
	Granularity *string `json:"granularity"` // null for totals
}

// Explain tells how p would be answered. It runs what decides that (the day spans' statement
// and the fallback probes), never the answer.
func (s *Service) Explain(ctx context.Context, p *Prepared) (*Explanation, error) {
	out := &Explanation{Plan: []PlanPart{}, SQL: []string{}, Warnings: []string{}, View: p.c.plan.view(), Attribution: p.c.plan.credits.used()}
	if err := s.explainCompiled(ctx, p.c, out, ""); err != nil {
		return nil, err
	}
	if p.cmp != nil {
		if err := s.explainCompiled(ctx, p.cmp, out, "comparison period: "); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Service) explainCompiled(ctx context.Context, c *Compiled, out *Explanation, prefix string) error {
	if c.Spans != nil {
		days, err := s.daySpans(ctx, c)
		if err != nil {
			return err
		}
		if len(days) > 0 { // the answer's first statement finds them; the answer with them follows
			if err := s.addSQL(out, c.Attempts[0].first()); err != nil {
				return err
			}
			c = c.WithDaySpans(days)
		}
	}
	chosen, err := s.chosen(ctx, c.Attempts)
	if err != nil {
		return err
	}
	for _, st := range []*Statement{chosen.OneCurrency, chosen.Lean, &chosen.Query, chosen.Total, chosen.Overlap} {
		if st != nil {
			if err := s.addSQL(out, *st); err != nil {
				return err
			}
		}
	}
	if prefix == "" {
		out.Plan = chosen.plan.parts()
		if chosen.plan.crediting() {
			out.Attribution.Table = chosen.Table
		}
	}
	for _, w := range append(append([]string{}, c.Warnings...), chosen.Warnings...) {
		out.Warnings = append(out.Warnings, prefix+w)
	}
	return nil
}

// chosen is the attempt that would answer, decided by the probes alone: the first whose table
// holds data in the range, or the first when none does. (Answering sees it sooner, from the
// first attempt's rows, and probes only when they show no facts: the same attempt.)
func (s *Service) chosen(ctx context.Context, attempts []Attempt) (Attempt, error) {
	if attempts[0].Probe == nil {
		return attempts[0], nil
	}
	for _, a := range attempts {
		n, err := s.probe(ctx, a)
		if err != nil {
			return Attempt{}, err
		}
		if n > 0 {
			return a, nil
		}
	}
	return attempts[0], nil
}

func (s *Service) addSQL(out *Explanation, st Statement) error {
	sql, err := Bind(st)
	if err != nil {
		return err
	}
	out.SQL = append(out.SQL, s.sql(Statement{SQL: sql}))
	return nil
}

// parts cuts the plan's range into its day spans, answered per day from the daily table, and
// the rest, answered from its table at its granularity.
func (p *plan) parts() []PlanPart {
	var gran *string
	if p.gran != nil {
		name := p.gran.name
		gran = &name
	}
	day := "day"
	part := func(from, to time.Time, table string, g *string) PlanPart {
		return PlanPart{Start: from.In(p.loc).Format(time.RFC3339), End: to.In(p.loc).Format(time.RFC3339), Table: table, Granularity: g}
	}
	var out []PlanPart
	cur := p.start
	for _, sp := range p.spans {
		from, to := DayStart(sp.first, p.loc), DayStart(sp.after, p.loc)
		if from.Before(cur) {
			from = cur
		}
		if to.After(p.end) {
			to = p.end
		}
		if !from.Before(to) {
			continue
		}
		if cur.Before(from) {
			out = append(out, part(cur, from, p.tableName(p.table), gran))
		}
		out = append(out, part(from, to, familyAd.tableName(tableDaily), &day))
		cur = to
	}
	if cur.Before(p.end) {
		out = append(out, part(cur, p.end, p.tableName(p.table), gran))
	}
	return out
}
