package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
)

// directPath sends compiled statements straight to ClickHouse through clickhouse-go, with the
// settings the engine's Service sends them with: the floor under the API (the statements the
// engine compiled) and the forced-raw variant (the same queries planned on facts_raw).
type directPath struct {
	conn  driver.Conn
	stmts []engine.Statement
	// queries are the attempts' Query statements: the converting statement with every
	// missing-rate flag, which stmts replace where a lighter one answers.
	queries []engine.Statement
	// spans are the day-spans statements the service runs before stmts (nil where it runs none).
	spans    []*engine.Statement
	settings []clickhouse.Settings
	// tables are the tables the statements read, for the report.
	tables []string
}

// compileMix compiles every query of the mix as the service does (its first attempt: the
// warm-up checks that the API answered from it, without a fallback warning), or on facts_raw.
func compileMix(conn driver.Conn, svc *engine.Service, scope engine.Scope, mix []query, now time.Time, opts ...engine.CompileOption) (*directPath, error) {
	p := &directPath{conn: conn}
	for _, q := range mix {
		c, err := engine.Compile(scope, q.Input, now, opts...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Name, err)
		}
		a := c.Attempts[0]
		st := a.Query
		// The service sends these first, in this order, and each answers unless its fx_missing
		// voids it (other currencies, a missing rate).
		for _, first := range []*engine.Statement{a.OneCurrency, a.Lean} {
			if first == nil {
				continue
			}
			ok, err := answersAlone(conn, svc.Settings(a.Table), *first)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", q.Name, err)
			}
			if ok {
				st = *first
				break
			}
		}
		p.stmts = append(p.stmts, st)
		p.queries = append(p.queries, a.Query)
		p.spans = append(p.spans, c.Spans)
		p.tables = append(p.tables, a.Table)
		p.settings = append(p.settings, svc.Settings(a.Table))
	}
	return p, nil
}

// answersAlone reports whether an Attempt.OneCurrency or Attempt.Lean statement answers:
// whether none of its rows lists a currency in fx_missing.
func answersAlone(conn driver.Conn, settings clickhouse.Settings, st engine.Statement) (bool, error) {
	ctx := clickhouse.Context(context.Background(), clickhouse.WithSettings(settings))
	var n uint64
	err := conn.QueryRow(ctx, "SELECT count() FROM ("+st.SQL+") WHERE notEmpty(fx_missing)", st.Args...).Scan(&n)
	return n == 0, err
}

// send runs statement i (after its day-spans statement, as the service does) and reads every
// row of its answer.
func (p *directPath) send(ctx context.Context, i int) error {
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(p.settings[i]))
	if sp := p.spans[i]; sp != nil {
		rows, err := p.conn.Query(ctx, sp.SQL, sp.Args...)
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	rows, err := p.conn.Query(ctx, p.stmts[i].SQL, p.stmts[i].Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no rows")
	}
	return nil
}
