// Package wire is the one place mtk's long-lived objects are built: Build makes, once, the
// platform services, the query engine and the answers service over it, the ingest services, the bulk-object writer and the syncer
// over the open stores; the System it returns starts the outbox workers and lists the scheduled
// jobs, and api.New serves it over HTTP. `mtk serve`, the api tests, the API test helper and both
// benchmarks use it, with Options instead of wiring by hand.
package wire

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/answers"
	"mtk/api/ratelimit"
	"mtk/engine"
	"mtk/facts"
	"mtk/ingest/attribution"
	"mtk/ingest/batcher"
	"mtk/ingest/events"
	"mtk/ingest/orders"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/jsonlog"
	"mtk/internal/metrics"
	"mtk/internal/pglisten"
	"mtk/internal/runner"
	"mtk/platform"
)

// Options adjust what Build makes; the zero value is what `mtk serve` runs, less its metrics.
type Options struct {
	// Clock tells the time; nil means the wall clock.
	Clock clock.Clock
	// Logger receives the logs; nil discards them.
	Logger *slog.Logger
	// Metrics, when set, measures the API, the queries, the event batches, the drains and syncs.
	Metrics *metrics.Metrics
	// Batch configures the events batcher (zero: its defaults); its Observe is Metrics'.
	Batch batcher.Config
	// Bounds override the outboxes' bounds of the configuration (MTK_*_OUTBOX_MAX) when set.
	Bounds outbox.Bounds
	// RedisPrefix starts every key written to MTK_REDIS_URL's server; empty means "mtk:".
	RedisPrefix string
}

// System is every long-lived object of one mtk server, built once.
type System struct {
	Config   config.Config
	Postgres *pgxpool.Pool
	// ClickHouse is what the engine reads and the drainers and syncs write.
	ClickHouse driver.Conn
	Clock      clock.Clock
	Log        *slog.Logger
	Metrics    *metrics.Metrics // nil: none

	// Store is the platform's services, one per entity (platform.New).
	Store    *platform.Services
	Engine   *engine.Service
	Resolver *attribution.Resolver
	Events   *events.Service
	Orders   *orders.Service
	Objects  *adsync.Objects
	Syncer   *adsync.Syncer
	// Versions are the data versions that key cached answers, Answers the answer cache; both nil
	// when MTK_QUERY_CACHE is off.
	Versions *facts.Versions
	Answers  *answers.Cache
	// Shared is the answers the replicas share on MTK_REDIS_URL's server, behind Answers; nil
	// when it is unset, MTK_SHARED_ANSWERS is off or answers are not cached.
	Shared *answers.Shared
	// Queries answers metrics queries over Engine, Versions and Answers.
	Queries *answers.Service
	// Limits keeps the rate limits on MTK_REDIS_URL's server, shared by every replica; nil when
	// it is unset, and the limits are in-process.
	Limits *ratelimit.Redis

	redis *redis.Client // closed by Close

	// run holds every long-running piece Build and the Start methods started; Close ends it.
	run       *runner.Runner
	closeOnce sync.Once
}

// Build makes the System over open stores and starts what it listens with (PostgreSQL's
// notifications of revocations and data versions) in its runner. A configuration it cannot run
// with is its error, nothing left running. Close the System after the HTTP server has stopped.
func Build(cfg config.Config, pg *pgxpool.Pool, ch driver.Conn, opts Options) (*System, error) {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(jsonlog.New(io.Discard, nil))
	}
	clk, log, m := opts.Clock, opts.Logger, opts.Metrics
	bounds := opts.Bounds
	if bounds == (outbox.Bounds{}) {
		bounds.Events, bounds.Facts, bounds.Journeys = cfg.EventOutboxMax, cfg.FactOutboxMax, cfg.JourneyOutboxMax
	}
	// A request's store calls, a query's statements and their wait for a turn, and the storing
	// of the batch an event waits for are all bounded by the store timeout: one figure for how
	// long a client may wait on a store before its 503.
	evCfg := events.Config{Batch: opts.Batch, Bounds: bounds}
	if evCfg.Batch.FlushTimeout <= 0 {
		evCfg.Batch.FlushTimeout = cfg.StoreDeadline()
	}
	if err := evCfg.Batch.Validate(); err != nil { // checked before anything starts
		return nil, fmt.Errorf("wire: event batches: %w", err)
	}
	var ro *redis.Options
	if cfg.RedisURL != "" {
		var err error
		if ro, err = redisOptions(cfg.RedisURL); err != nil {
			return nil, fmt.Errorf("wire: MTK_REDIS_URL: %w", err)
		}
	}
	reader, err := HTTPReader(cfg)
	if err != nil {
		return nil, err
	}
	s := &System{Config: cfg, Postgres: pg, ClickHouse: ch, Clock: clk, Log: log, Metrics: m,
		Store: platform.New(pg, clk), Resolver: attribution.New(pg, clk, 0), run: runner.New(log)}
	engOpts := engine.Options{Clock: clk, Cluster: cfg.ClickHouseCluster != "", MaxConcurrent: cfg.QuerySlots,
		MaxExecutionTime: cfg.StoreDeadline(), HTTP: reader}
	if m != nil {
		evCfg.Batch.Observe, evCfg.QueueFull, engOpts.Observe = m.EventFlush, m.EventRefused, m.Query
	}
	s.Engine = engine.New(ch, engOpts)
	s.Events = events.New(evCfg, pg, s.Store.Containers, s.Store.Projects, s.Resolver, clk, log)
	if m != nil {
		m.WatchEventQueue(s.Events.Queued)
	}
	s.Orders = orders.New(pg, s.Store.Connections, s.Resolver, clk, bounds)
	s.Objects = &adsync.Objects{Store: adsync.NewStore(pg), Connectors: networks.Factory{}.Connector, Clock: clk,
		StoreTimeout: cfg.StoreDeadline()}
	s.Syncer = NewSyncer(s.Store, ch, cfg.ClickHouseCluster, clk)
	if m != nil {
		s.Syncer.Observe = m.SyncRun
	}
	if cfg.QueryCacheOn() {
		s.Versions = facts.NewVersions(pg, cfg.QueryCacheByProject())
		s.Answers = answers.NewCache(cfg.QueryCacheBytes())
		if m != nil {
			m.WatchAnswers(s.Answers.Stats)
		}
	}
	if ro != nil {
		prefix := cmp.Or(opts.RedisPrefix, "mtk:")
		s.redis = redis.NewClient(ro)
		s.Limits = ratelimit.NewRedis(s.redis, prefix)
		if cfg.SharedAnswersOn() {
			s.Shared = answers.NewShared(ro, prefix, answers.SharedConfig{}, log)
			if m != nil {
				m.WatchSharedAnswers(s.Shared.Stats)
			}
		}
	}
	s.Queries = answers.New(s.Engine, s.Versions, s.Answers, s.Shared)
	if err := s.listen(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// listen starts hearing PostgreSQL's notifications, for every subscriber on one connection.
func (s *System) listen() error {
	d := pglisten.New(s.Postgres.Config().ConnConfig, s.Log)
	if err := s.Store.Subscribe(d); err != nil {
		return err
	}
	if s.Versions != nil {
		if err := s.Versions.Subscribe(d); err != nil {
			return err
		}
	}
	return s.run.Go("postgres notifications", d.Run)
}

// NewSyncer is the ad network syncer over p and ch, a server of cluster ("" for one server) (the
// command line's `mtk sync` uses it without a whole System).
func NewSyncer(p *platform.Services, ch driver.Conn, cluster string, clk clock.Clock) *adsync.Syncer {
	return &adsync.Syncer{Store: adsync.NewStore(p.Pool()), ClickHouse: ch, Cluster: cluster, Connectors: networks.Factory{}.Connector,
		Clock: clk, Projects: p.Projects, Connections: p.Connections}
}

// Close stops everything Build and the Start methods started (the workers, the jobs, the
// listener) and waits for it, stores the events still queued and closes the Redis client; call it
// after the HTTP server has stopped. Calling it again does nothing.
func (s *System) Close() {
	s.closeOnce.Do(func() {
		s.run.Close()
		s.Events.Close()
		if s.redis != nil {
			s.redis.Close()
		}
		if s.Shared != nil {
			s.Shared.Close()
		}
	})
}
