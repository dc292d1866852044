// Command ingest benchmarks the tracking write path over HTTP on loopback: events per second and
// latency percentiles at N concurrent clients (each event with a lead identity and the UTM of a
// synced ad), then orders per second through the webhook. It runs mtk's HTTP server in process
// on fresh databases (mtk_bench_ingest on the servers of MTK_POSTGRES_URL and
// MTK_CLICKHOUSE_URL), with rate limits off, and at the end counts the rows stored against the
// 2xx answers: a lost event or order fails the run.
//
// The clients are a lean load generator (httpload.Poster).
//
// With -outage, ClickHouse is stopped (as its clients see it: see chGate) for that long, a quarter
// into the events phase: events must still be answered (they wait in PostgreSQL), and the run
// reports how far the event outbox grew and how long the drain took to catch up after. With
// -pg-freeze, PostgreSQL is frozen for that long (freezePostgres), from a quarter into the
// ClickHouse outage (or the events phase): events are then answered 503 within the store
// timeout. In either mode the event clients retry as an SDK does (an Idempotency-Key per call,
// the call sent again with it after the Retry-After of a 503), and the run reports the retries
// and fails on any answered 409: a key still held by a call that failed.
//
//	go run ./benchmarks/ingest [-clients 64] [-duration 20s] [-orders-duration 10s] [-outage 0] [-pg-freeze 0] [-retry-every 10] [-flushers n] [-cpuprofile file]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api"
	"mtk/benchmarks/internal/benchenv"
	"mtk/benchmarks/internal/figures"
	"mtk/benchmarks/internal/httpload"
	"mtk/benchmarks/internal/pgcost"
	"mtk/benchmarks/internal/profile"
	"mtk/client"
	"mtk/ingest/batcher"
	"mtk/ingest/factstream"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/internal/jsonlog"
	"mtk/internal/wire"
	"mtk/platform"
	"mtk/schema"
)

const dbName = "mtk_bench_ingest"

// flushers overrides the events batcher's Flushers.
var flushers int

// profilePath is where the events phase's CPU profile goes ("": none).
var profilePath string

// outage is how long ClickHouse is stopped during the events phase (0: not at all).
var outage time.Duration

// pgFreeze is how long PostgreSQL is frozen during the events phase (0: not at all).
var pgFreeze time.Duration

func main() {
	clients := flag.Int("clients", 64, "concurrent clients")
	duration := flag.Duration("duration", 20*time.Second, "how long events are sent")
	ordersDuration := flag.Duration("orders-duration", 10*time.Second, "how long orders are sent")
	flag.IntVar(&flushers, "flushers", 0, "event batches stored at once (0: the default)")
	flag.IntVar(&retryEvery, "retry-every", 10, "one events call in this many repeats the previous event_id (0: none)")
	flag.DurationVar(&outage, "outage", 0, "stop ClickHouse for this long, a quarter into the events phase")
	flag.DurationVar(&pgFreeze, "pg-freeze", 0, "freeze PostgreSQL for this long, a quarter into the ClickHouse outage (or the events phase)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the events phase (server and clients) to this file")
	flag.Parse()
	profilePath = *cpuProfile
	if err := run(*clients, *duration, *ordersDuration); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type setup struct {
	pg       *pgxpool.Pool // the benchmark's own; the server's counts its round trips in trips
	trips    *pgcost.Counter
	ch       driver.Conn
	gate     *chGate // between the drainers and ClickHouse
	project  platform.Project
	key      string
	webhook  string // the custom connection's webhook key
	base     string
	shutdown func()
}

func run(clients int, duration, ordersDuration time.Duration) error {
	ctx := context.Background()
	s, err := start(ctx)
	if err != nil {
		return err
	}
	defer s.shutdown()
	// No retries, unless a store is stopped: a retry would hide a failure.
	tracker, webhooks := httpload.NewPoster(s.base, s.key, clients), httpload.NewPoster(s.base, "", clients)
	if outage > 0 || pgFreeze > 0 {
		tracker.Retry = &httpload.Retries{}
	}

	fmt.Printf("events: %d clients for %s\n", clients, duration)
	stop, err := profile.Start(profilePath)
	if err != nil {
		return err
	}
	// One call in retryEvery repeats the worker's previous event, as an SDK retries: the same
	// event_id, which must be stored once.
	var answeredIDs sync.Map // event_id → struct{}, for every event answered 2xx
	loaded := make(chan struct{})
	type watched struct {
		r   outageReport
		err error
	}
	outageDone := make(chan watched, 1)
	if outage > 0 {
		fmt.Printf("  ClickHouse stopped from %s to %s\n", duration/4, duration/4+outage)
		go func() {
			r, err := watchOutage(ctx, s.pg, s.gate, duration/4, outage, loaded)
			outageDone <- watched{r, err}
		}()
	}
	frozen := make(chan error, 1)
	if pgFreeze > 0 {
		from := duration/4 + outage/4
		fmt.Printf("  PostgreSQL frozen from %s to %s\n", from, from+pgFreeze)
		go func() { frozen <- freezePostgres(ctx, s.pg, from, pgFreeze) }()
	}
	evs := httpload.Load(clients, duration, func(worker, i int) (func() error, error) {
		n := i
		if retryEvery > 0 && i%retryEvery == retryEvery-1 {
			n = i - 1
		}
		ev := &client.Event{Config: client.EventConfig{Name: "Lead"}, EventID: fmt.Sprintf("b-%d-%d", worker, n),
			Lead: &client.Lead{Email: fmt.Sprintf("p%d-%d@bench.example", worker, n%500), Phone: fmt.Sprintf("+55 11 9%04d-%04d", worker, n%500)},
			Page: &client.Page{URL: "https://bench.example/p?" + benchenv.UTMQuery}, Cookies: map[string]string{"_fbp": "fb.1.1.1"}}
		call, err := tracker.Request("/v3/tracking/events", ev)
		return func() error {
			err := call()
			if err == nil {
				answeredIDs.Store(ev.EventID, struct{}{})
			}
			return err
		}, err
	})
	stop()
	if pgFreeze > 0 {
		if err := <-frozen; err != nil {
			return fmt.Errorf("freezing PostgreSQL: %w", err)
		}
	}
	start := time.Now()
	waiting, err := drainEvents(ctx, s.pg)
	if err != nil {
		return err
	}
	fmt.Printf("event outbox: %d events were waiting for ClickHouse at the end, drained in %s\n", waiting, time.Since(start).Round(time.Millisecond))
	close(loaded)
	if outage > 0 {
		w := <-outageDone
		if w.err != nil {
			return w.err
		}
		fmt.Printf("  outage: the event outbox grew from %d (before) to %d; caught up %s after ClickHouse came back\n",
			w.r.before, w.r.peak, w.r.caughtUp.Round(10*time.Millisecond))
	}
	stored, err := count(ctx, s.ch, "SELECT count() FROM events WHERE project_id = ?", s.project.ID)
	if err != nil {
		return err
	}
	label := "events (no retries)"
	if retryEvery > 0 {
		label = fmt.Sprintf("events (one call in %d a retry of the previous event_id)", retryEvery)
	}
	evs.Report(label, stored)
	distinct := uint64(0)
	answeredIDs.Range(func(any, any) bool { distinct++; return true })
	fmt.Printf("  %d distinct event_ids answered 2xx, %d stored: %d lost, %d doubled\n", distinct, stored,
		max(int64(distinct)-int64(stored), 0), max(int64(stored)-int64(distinct), 0))
	var conflicts int64
	if r := tracker.Retry; r != nil {
		conflicts = r.Conflicts.Load()
		fmt.Printf("  retries: %d calls sent again after a 503 or no answer (same Idempotency-Key, after Retry-After); %d met 409 (must be 0)\n",
			r.Sent.Load(), conflicts)
	}

	fmt.Printf("orders: %d clients for %s\n", clients, ordersDuration)
	// newest is, per transaction, the value of its newest state answered 2xx (the states of one
	// transaction come from one client, in order): what PostgreSQL must hold at the end.
	var mu sync.Mutex
	newest := map[string]int64{}
	webhook := "/v2/tracking/generic?k=" + url.QueryEscape(s.webhook)
	trips0, cpu0, err := s.pgSpent(ctx)
	if err != nil {
		return err
	}
	ords := httpload.Load(clients, ordersDuration, func(worker, i int) (func() error, error) {
		now := time.Now().UTC().Truncate(time.Second)
		tx := &client.Transaction{ID: fmt.Sprintf("o-%d-%d", worker, i/2), Status: []string{"pending", "approved", "approved", "refunded"}[i%4],
			Value: int64(1000 + i), CreatedAt: now, UpdatedAt: now.Add(time.Duration(i) * time.Second),
			Customer: &client.Customer{Email: fmt.Sprintf("p%d-%d@bench.example", worker, i%500)},
			UTM:      &client.UTM{Campaign: "Bench|900", Content: "Ad|902"}}
		call, err := webhooks.Request(webhook, map[string]any{"transaction": tx})
		return func() error {
			err := call()
			if err == nil {
				mu.Lock()
				newest[tx.ID] = max(newest[tx.ID], tx.Value)
				mu.Unlock()
			}
			return err
		}, err
	})
	trips1, cpu1, err := s.pgSpent(ctx)
	if err != nil {
		return err
	}
	rows, err := s.pg.Query(ctx, "SELECT transaction_id, value FROM orders")
	if err != nil {
		return err
	}
	storedTx, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		ID    string
		Value int64
	}])
	if err != nil {
		return err
	}
	ords.Report("orders (calls, two states per transaction; stored: transactions)", uint64(len(storedTx)))
	fmt.Printf("  %d transactions answered, %d stored, each in its newest answered state\n", len(newest), len(storedTx))
	if states := ords.OK(); states > 0 {
		trips := float64(trips1-trips0) / float64(states)
		fmt.Printf("  PostgreSQL per order state (the server's drainers included): %.2f round trips, %.0f µs of backend CPU\n",
			trips, float64(cpu1.Since(cpu0).Microseconds())/float64(states))
		if outage == 0 && pgFreeze == 0 { // the summary of make bench reads an undisturbed run's
			if err := figures.Record(map[string]float64{"ingest.order_round_trips": trips}); err != nil {
				return err
			}
		}
	}
	if len(storedTx) != len(newest) {
		return fmt.Errorf("%d transactions answered 2xx but %d stored", len(newest), len(storedTx))
	}
	for _, o := range storedTx {
		if want, ok := newest[o.ID]; !ok || o.Value != want {
			return fmt.Errorf("transaction %s stored with value %d, newest answered %d", o.ID, o.Value, want)
		}
	}
	start = time.Now()
	applied, err := factstream.NewDrainer(s.pg, s.ch, clock.Real{}, slog.Default()).RunOnce(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("fact outbox: %d rows drained into ClickHouse in %s\n", applied, time.Since(start).Round(time.Millisecond))
	if distinct != stored {
		return fmt.Errorf("%d distinct event_ids answered 2xx but %d stored", distinct, stored)
	}
	if conflicts > 0 {
		return fmt.Errorf("%d retries met 409: a key held by a call that had failed", conflicts)
	}
	return nil
}

// pgSpent is the round trips the server has sent PostgreSQL and the CPU of the backends serving
// the benchmark's database.
func (s *setup) pgSpent(ctx context.Context) (int64, pgcost.CPU, error) {
	cpu, err := pgcost.BackendCPU(ctx, s.pg, dbName)
	return s.trips.Trips(), cpu, err
}

// retryEvery is how often an events call repeats the previous event (1 in retryEvery; 0: never).
var retryEvery int

// drainEvents waits until the running event drainer has emptied the event outbox, and returns
// how many events were waiting.
func drainEvents(ctx context.Context, pg *pgxpool.Pool) (int64, error) {
	var waiting int64
	for i := 0; ; i++ {
		var n int64
		if err := pg.QueryRow(ctx, "SELECT count(*) FROM event_outbox").Scan(&n); err != nil {
			return 0, err
		}
		if i == 0 {
			waiting = n
		}
		if n == 0 {
			return waiting, nil
		}
		if i == 600 {
			return 0, fmt.Errorf("%d events still wait for ClickHouse after a minute", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func count(ctx context.Context, ch driver.Conn, q string, args ...any) (uint64, error) {
	var n uint64
	err := ch.QueryRow(ctx, q, args...).Scan(&n)
	return n, err
}

// start makes fresh databases, a tenant with a container, a custom connection, synced entities
// and a tracking key, and serves mtk on a loopback port.
func start(ctx context.Context) (*setup, error) {
	env := config.FromEnv()
	pgURL, chURL, err := benchenv.FreshDatabases(ctx, env, dbName)
	if err != nil {
		return nil, err
	}
	s := &setup{}
	if s.pg, err = db.OpenPostgres(ctx, pgURL); err != nil {
		return nil, err
	}
	if s.ch, err = db.OpenClickHouse(ctx, chURL); err != nil {
		return nil, err
	}
	// The drainers reach ClickHouse through a gate that -outage closes; the benchmark's own
	// counts go straight to it.
	if s.gate, err = newCHGate(hostOf(chURL)); err != nil {
		return nil, err
	}
	drainCH, err := db.OpenClickHouse(ctx, withHost(chURL, s.gate.addr))
	if err != nil {
		return nil, err
	}
	s.trips = &pgcost.Counter{}
	served, err := s.trips.Traced(ctx, s.pg.Config())
	if err != nil {
		return nil, err
	}
	if _, err := schema.MigratePostgres(ctx, s.pg); err != nil {
		return nil, err
	}
	if _, err := schema.MigrateClickHouse(ctx, s.ch); err != nil {
		return nil, err
	}
	clk := clock.Real{}
	t, err := benchenv.NewTenant(ctx, s.pg, clk, auth.ScopeTrackingWrite)
	if err != nil {
		return nil, err
	}
	s.project, s.key = t.Project, t.Key
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.base = "http://" + ln.Addr().String()
	s.webhook = t.Webhook
	log := slog.New(jsonlog.New(io.Discard, nil))
	cfg := config.Config{Listen: ln.Addr().String(), BaseURL: s.base, RateLimits: config.Off, JWTSecret: "bench-secret-bench-secret-bench-secret"}
	// Built as mtk serve builds it; its ClickHouse is the gated one, which only the drainers use.
	sys, err := wire.Build(cfg, served, drainCH, wire.Options{Clock: clk, Logger: log, Batch: batcher.Config{Flushers: flushers}})
	if err != nil {
		ln.Close()
		return nil, err
	}
	// The workers run as in mtk serve, so that ClickHouse's share of the work is measured too.
	if err := sys.StartWorkers(); err != nil {
		sys.Close()
		ln.Close()
		return nil, err
	}
	app := api.New(sys.API())
	go app.Listener(ln) //nolint:errcheck // stopped by shutdown
	s.shutdown = func() {
		app.Shutdown() //nolint:errcheck
		sys.Close()    // stops the workers and waits for them
		served.Close()
		s.pg.Close()
		s.ch.Close()
		drainCH.Close()
	}
	return s, nil
}
