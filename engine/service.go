package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/internal/clock"
	"mtk/internal/recovered"
	"mtk/internal/ttlcache"
)

// Options configure a Service. Zero values take the defaults.
type Options struct {
	// Clock gives "now" for queries without a time range (default: the wall clock).
	Clock clock.Clock
	// MaxExecutionTime bounds every statement on the server (default 10 s).
	MaxExecutionTime time.Duration
	// MaxRowsToRead bounds the rows a statement may read (default 2e9).
	MaxRowsToRead int
	// MaxMemoryUsage bounds a statement's memory in bytes (default 4 GiB).
	MaxMemoryUsage int
	// RollupThreads is max_threads for statements on the hourly and daily tables (default 1).
	// They read little by design, and on ClickHouse 18.16 a second thread costs more than it
	// saves there (benchmarks/README.md); statements on facts_raw keep the server's max_threads.
	RollupThreads int
	// Observe, when set, hears about every Query call: the table that answered, whether it was
	// a fallback, the duration, and the kind of a failure (metrics).
	Observe func(Observation)
	// MaxConcurrent is how many statements the Service runs on ClickHouse at once; more wait
	// their turn, for at most MaxExecutionTime (then 503). Default: the server's cores plus one,
	// read from it once (slots.go).
	MaxConcurrent int
	// Cluster says the fact and entity tables are Distributed tables over a ClickHouse
	// cluster's shards, sharded by project (schema.Cluster). Statements then run with
	// distributed_product_mode = 'local': a name filter's subquery on entities, which runs on
	// every shard inside the facts' read, reads that shard's own entities, those of the
	// projects it holds (ClickHouse refuses it otherwise). The entity names and the exchange
	// rates that answers join are read whole where the statement started.
	Cluster bool
	// HTTP, when set, reads every statement over ClickHouse's HTTP interface instead of the
	// native connection (reads.go; issue 41: the native protocol's fixed cost per statement).
	HTTP *HTTPReader
}

// clusterSettings end every statement of a Service on a cluster. A string setting cannot
// travel through the driver to ClickHouse 18.16, so it is a SETTINGS clause.
const clusterSettings = " SETTINGS distributed_product_mode = 'local'"

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.MaxExecutionTime <= 0 {
		o.MaxExecutionTime = 10 * time.Second
	}
	if o.MaxRowsToRead <= 0 {
		o.MaxRowsToRead = 2_000_000_000
	}
	if o.MaxMemoryUsage <= 0 {
		o.MaxMemoryUsage = 4 << 30
	}
	if o.RollupThreads <= 0 {
		o.RollupThreads = 1
	}
	return o
}

// Service answers queries from ClickHouse.
type Service struct {
	conn driver.Conn
	opts Options
	// converting remembers, per project, until when its money queries skip Attempt.OneCurrency
	// (a recent one found facts in another currency): a hint that saves a statement, never a
	// source of answers.
	converting *ttlcache.Cache[string, bool]        // project id → mixes currencies
	prepared   *ttlcache.Cache[[32]byte, *Prepared] // prepareKey → the query prepared (preparedcache.go)
	flights    flights
	slotsOnce  sync.Once
	slots      chan struct{}
}

// convertingFor is how long a project whose facts mix currencies goes straight to the
// converting statement before the one-currency statement is tried again.
const convertingFor = 10 * time.Minute

// New returns a Service reading through conn.
func New(conn driver.Conn, opts Options) *Service {
	return &Service{conn: conn, opts: opts.withDefaults(), converting: ttlcache.New[string, bool](convertingFor, 100_000),
		prepared: ttlcache.New[[32]byte, *Prepared](preparedFor, preparedMax)}
}

// Settings are the ClickHouse settings a statement on table (facts_raw, facts_hourly,
// facts_daily, their business_* and credits_* counterparts) runs with: the one place they are
// set. The query benchmark sends its floor statements with them too.
func (s *Service) Settings(table string) clickhouse.Settings {
	secs := int(s.opts.MaxExecutionTime / time.Second)
	if secs < 1 {
		secs = 1
	}
	set := clickhouse.Settings{
		"max_execution_time": secs,
		"max_rows_to_read":   s.opts.MaxRowsToRead,
		"max_memory_usage":   s.opts.MaxMemoryUsage,
		"max_query_size":     maxStatementBytes,
	}
	if !rawTable(table) {
		set["max_threads"] = s.opts.RollupThreads
	}
	return set
}

// maxStatementBytes is the longest statement text the caps of a query (validate.go) let the
// compiler write: its filter values bound into it (clickhouse-go binds on the client), each at
// most twice (a day-span statement's two branches) and escaped to at most twice its length, and
// 1 MiB for the rest. ClickHouse's default max_query_size, 256 KiB, refused 3 filters of 100
// values of 1,000 bytes.
const maxStatementBytes = 2*2*MaxFilters*MaxFilterValues*MaxValueBytes + 1<<20

func (s *Service) limited(ctx context.Context, table string) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithSettings(s.Settings(table)))
}

// sql is a statement's text as the service sends it.
func (s *Service) sql(st Statement) string {
	if s.opts.Cluster {
		return st.SQL + clusterSettings
	}
	return st.SQL
}

// Query validates in against scope and answers it: Prepare, then Run.
func (s *Service) Query(ctx context.Context, scope Scope, in QueryInput) (*Result, error) {
	p, err := s.Prepare(scope, in)
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, p)
}

// Prepare validates in against scope and compiles it; it does no I/O. Errors are *apperr.Error
// for a bad query, plain errors for a bad scope.
func (s *Service) Prepare(scope Scope, in QueryInput) (*Prepared, error) {
	start, now := time.Now(), s.opts.Clock.Now()
	key, keep := prepareKey(scope, in, now)
	if keep {
		if p, ok := s.prepared.Get(key, start); ok {
			q := *p
			q.start = start
			return &q, nil
		}
	}
	p, err := s.prepare(scope, in, now, start)
	if err == nil && keep {
		s.prepared.Put(key, p, start)
	}
	return p, err
}

// prepare is Prepare without the kept queries.
func (s *Service) prepare(scope Scope, in QueryInput, now, start time.Time) (*Prepared, error) {
	c, err := Compile(scope, in, now)
	if err != nil {
		s.observe(start, nil, Attempt{}, false, err)
		return nil, err
	}
	key, err := answerKey(scope, in, c)
	if err != nil {
		return nil, err
	}
	p := &Prepared{c: c, key: key, start: start}
	if !c.plan.cmpStart.IsZero() {
		in := compareInput(in, c.plan.cmpStart, c.plan.cmpEnd)
		in.checked = false // its time was rewritten
		if p.cmp, err = Compile(scope, in, now); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Run answers a prepared query. Identical queries that arrive together share one run (flights).
// Errors are *apperr.Error for the client (limits, store unavailable) or internal errors.
func (s *Service) Run(ctx context.Context, p *Prepared) (*Result, error) {
	c := p.c
	out, shared := s.flights.do(ctx, p.key, func(ctx context.Context) answered {
		if p.cmp == nil {
			return s.answerCompiled(ctx, c)
		}
		// The comparison period runs alongside.
		var cmp answered
		done := make(chan struct{})
		go func() {
			defer close(done)
			cmp = safely(ctx, func(ctx context.Context) answered { return s.answerCompiled(ctx, p.cmp) })
		}()
		out := s.answerCompiled(ctx, c)
		<-done
		if out.err == nil {
			out.err = cmp.err
		}
		if out.err == nil {
			res := *out.res
			res.Data = withCompare(out.res.Data, cmp.res.Data, len(c.plan.fields))
			res.CompareTime = rangeLabel(c.plan.cmpStart, c.plan.cmpEnd, c.plan.loc)
			for _, w := range cmp.warnings() {
				res.Warnings = append(res.Warnings, "comparison period: "+w)
			}
			if cmp.res.HasMore {
				res.Warnings = append(res.Warnings, fmt.Sprintf("comparison period: only its first %d rows are compared", MaxLimit))
			}
			out.res = &res
		}
		return out
	})
	if out.left { // observed as the first attempt's, where a caller alone would have stopped
		out.c, out.chosen = c, c.Attempts[0]
	}
	s.observe(p.start, out.c, out.chosen, shared, out.err)
	if out.err != nil {
		return nil, out.err
	}
	res := *out.res // the rows are shared with the other callers of the flight, read-only
	res.Currency = out.c.Currency
	res.Warnings = out.warnings()
	res.Time = c.plan.named
	return &res, nil
}

// warnings are an answer's warnings: its Compiled's, its attempt's, then its rows'.
func (a answered) warnings() []string {
	w := append(append([]string{}, a.c.Warnings...), a.chosen.Warnings...)
	return append(w, a.res.Warnings...)
}

// answerCompiled answers one compiled query. With day spans to check, its first statement reads
// them beside the answer: when they are none (the usual case) that answer stands; otherwise
// the query is answered again with them. The spans' own statement runs only when no row of the
// answer told them (no row at all).
func (s *Service) answerCompiled(ctx context.Context, c *Compiled) answered {
	var seen spansSeen
	out := s.answerAttempts(ctx, c, &seen)
	if c.Spans == nil || out.err != nil {
		return out
	}
	if !seen.read {
		var err error
		if seen.days, err = s.daySpans(ctx, c); err != nil {
			return answered{err: err}
		}
	}
	if !seen.found() {
		return out
	}
	return s.answerAttempts(ctx, c.WithDaySpans(seen.days), nil)
}

// spansSeen is what the answer's first statement read of the day spans (plan.spanCheck).
type spansSeen struct {
	days []time.Time
	read bool // a row came: days are the spans, none when empty
}

// found reports whether spans were read and there are some.
func (s *spansSeen) found() bool { return s != nil && len(s.days) > 0 }

// answerAttempts answers from c's attempts, then reads its total_rows when asked and its
// overlap. seen (nil when c checks no spans) hears of the day spans the first statement read;
// when it found some, the answer is not the query's and nothing more is read.
func (s *Service) answerAttempts(ctx context.Context, c *Compiled, seen *spansSeen) answered {
	// The first attempt's overlap check runs beside the answer: that attempt nearly always
	// answers, and the two statements then take the time of the longer rather than their sum.
	first := c.Attempts[0]
	var early chan counted
	if first.Overlap != nil {
		early = make(chan counted, 1)
		go func() {
			var o counted
			if err := recovered.Call(func() error { o.n, o.err = s.count(ctx, first.Table, *first.Overlap); return nil }); err != nil {
				o.err = fmt.Errorf("engine: overlap count: %w", err)
			}
			early <- o
		}()
	}
	res, chosen, err := s.answer(ctx, c.Attempts, seen)
	if err == nil && seen.found() {
		return answered{c: c, res: res, chosen: chosen}
	}
	if err == nil && chosen.Total != nil {
		var n uint64
		if n, err = s.count(ctx, chosen.Table, *chosen.Total); err == nil {
			res.TotalRows = &n
		}
	}
	if err == nil && chosen.Overlap != nil {
		var o counted
		if chosen.Overlap == first.Overlap {
			o = <-early
		} else {
			o.n, o.err = s.count(ctx, chosen.Table, *chosen.Overlap)
		}
		if err = o.err; err == nil && o.n > 0 {
			res.Warnings = append(res.Warnings, overlapWarning)
		}
	}
	return answered{c: c, res: res, chosen: chosen, err: err}
}

// answer runs the first attempt. When its rows hold facts, its table holds the range and it
// answers. Otherwise the probes decide, in order: the first table with data in the range answers
// (the first attempt's rows stand when that is its own table: filters left no facts), and the
// first attempt answers when no table has data. Day spans found by the first statement
// (seen) end it there.
func (s *Service) answer(ctx context.Context, attempts []Attempt, seen *spansSeen) (*Result, Attempt, error) {
	first := attempts[0]
	res, facts, err := s.run(ctx, first, seen)
	if err != nil || facts || first.Probe == nil || seen.found() {
		return res, first, err
	}
	for i, a := range attempts {
		n, err := s.probe(ctx, a)
		if err != nil {
			return nil, a, err
		}
		if n == 0 {
			continue
		}
		if i > 0 {
			res, _, err := s.run(ctx, a, seen)
			return res, a, err
		}
		break
	}
	return res, first, nil
}

// daySpans runs c's Spans statement alone: the days it lists.
func (s *Service) daySpans(ctx context.Context, c *Compiled) ([]time.Time, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := s.read(ctx, familyAd.tableName(tableDaily), *c.Spans)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var days []time.Time
	for rows.Next() {
		var d time.Time
		if err := rows.Scan(&d); err != nil {
			return nil, mapError(err)
		}
		days = append(days, d)
	}
	if err := rows.Err(); err != nil {
		return nil, mapError(err)
	}
	return days, nil
}

// probe counts a's rows for the project in the range (at most 1).
func (s *Service) probe(ctx context.Context, a Attempt) (uint64, error) {
	return s.count(ctx, a.Table, *a.Probe)
}

// count runs a statement on table that answers one count.
// counted is what count gives, to pass between goroutines.
type counted struct {
	n   uint64
	err error
}

func (s *Service) count(ctx context.Context, table string, st Statement) (uint64, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	rows, err := s.read(ctx, table, st)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n uint64
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, mapError(err)
		}
		return 0, fmt.Errorf("engine: a count without a row")
	}
	if err := rows.Scan(&n); err != nil {
		return 0, mapError(err)
	}
	return n, nil
}

// run answers from one attempt, and reports whether its rows showed facts (only a statement
// that flags them can). It sends the one-currency statement first when there is one and the
// project is not known to mix currencies, and the converting statements when that one finds
// money in another currency: the lean one, then Query when the lean one finds a missing rate.
// seen hears of the day spans the first statement read.
func (s *Service) run(ctx context.Context, a Attempt, seen *spansSeen) (*Result, bool, error) {
	project := a.plan.projectID
	if a.OneCurrency != nil {
		if _, mixes := s.converting.Get(project, s.opts.Clock.Now()); !mixes {
			res, facts, foreign, err := s.runStatement(ctx, a, *a.OneCurrency, seen)
			if err != nil || !foreign {
				return res, facts, err
			}
			s.converting.Put(project, true, s.opts.Clock.Now())
		}
	}
	if a.Lean != nil {
		res, facts, rateless, err := s.runStatement(ctx, a, *a.Lean, seen)
		if err != nil || !rateless {
			return res, facts, err
		}
	}
	res, facts, _, err := s.runStatement(ctx, a, a.Query, seen)
	return res, facts, err
}

// runStatement reads one of a's statements: the answer, whether its rows showed facts, and
// whether they listed currencies in fx_missing. With plan.spanCheck, seen hears of the day spans
// its first row read.
func (s *Service) runStatement(ctx context.Context, a Attempt, st Statement, seen *spansSeen) (*Result, bool, bool, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, false, false, err
	}
	defer release()
	p := a.plan
	rows, err := s.read(ctx, a.Table, st)
	if err != nil {
		return nil, false, false, err
	}
	defer rows.Close()
	res := &Result{Data: []Row{}, View: p.view(), Warnings: []string{}}
	missing := map[string]map[time.Time]bool{} // currency → days without a rate
	sc := p.scanner()
	ex := newExacts(p)
	facts := false
	for rows.Next() {
		if err := rows.Scan(sc.dests...); err != nil {
			return nil, false, false, mapError(err)
		}
		for _, c := range sc.fxMissing {
			addMissing(missing, c)
		}
		if p.spanCheck && seen != nil && !seen.read {
			seen.days, seen.read = slices.Clone(sc.spanDays), true
		}
		facts = facts || sc.hasFacts > 0
		if len(res.Data) == p.limit {
			res.HasMore = true
			continue
		}
		res.Data = append(res.Data, p.row(sc))
		ex.keep(p, sc.sums)
	}
	if err := rows.Err(); err != nil {
		return nil, false, false, mapError(err)
	}
	if p.offset == 0 {
		ex.allocate(p, res.Data)
	}
	first, after := dayRange(p.start, p.end, p.loc)
	res.Warnings = fxWarnings(missing, p.currency, first, after)
	return res, facts, len(missing) > 0, nil
}
