// Package events takes tracking events: it validates them, finds their container, lead and
// attributed ad entity, and stores them through a group-commit batcher, answering only once the
// event's batch is stored.
//
// A batch is stored in one PostgreSQL transaction, one group commit: it resolves the batch's
// leads (under the project's lead lock), and writes the events to the event outbox, the
// business facts of attributed events to the fact outbox and the conversions of events with
// config.alpha to the conversion outbox. The events are answered after the commit, so an event
// and everything it causes are stored together, durably, or not at all (503 with Retry-After,
// and the caller retries). An event holding a value PostgreSQL refuses, which no check caught,
// never fails its batch's other events, whatever their tenant: the batch is stored again without
// it, and it alone is answered 400 (storeApart). The outbox drainers (ingest/outbox) then move events to ClickHouse's
// events table and facts to facts_raw, each exactly once, within about a second. Memory is
// bounded by the batcher's queue; when ClickHouse is down the events wait in PostgreSQL, and
// events that would pass the outboxes' bounds (Config.Bounds) are refused with 503 and
// Retry-After until the drainers make room.
//
// Attribution: an event's UTM (utm.Extract: body, then page URL, then cookies) is resolved
// against the project's synced entities; only an attributed event writes facts (facts_raw holds
// what the attribution metrics count, so totals count attributed facts only), while every event
// is kept in the events table, and every event that counts (page view, lead, checkout) writes a
// business row (business_raw, through the fact outbox) keyed by its UTM, referrer host, landing
// path and device (BizRowOf).
package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/attribution"
	"mtk/ingest/batcher"
	"mtk/ingest/journeys"
	"mtk/ingest/leads"
	"mtk/ingest/outbox"
	"mtk/ingest/traffic"
	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/platform"
	"mtk/platform/utm"
)

// Config configures a Service.
type Config struct {
	// Batch configures the batcher; its Observe hears every flush (metrics).
	Batch batcher.Config
	// Geo locates leads by IP; nil means none.
	Geo leads.Geolocator
	// Bounds are the most rows the event, fact and journey outboxes may hold; an event that would
	// pass one is refused with 503 (zero values: outbox.DefaultMaxRows).
	Bounds outbox.Bounds
	// QueueFull, when set, is called for every event refused because the queue is full (metrics).
	QueueFull func()
}

// Service takes events.
type Service struct {
	pool     *pgxpool.Pool
	resolver *attribution.Resolver
	clock    clock.Clock
	log      *slog.Logger
	geo      leads.Geolocator
	full     func()
	batcher  *batcher.Batcher[*event, Result]
	targets  targets
	bounds   outbox.Bounds

	// containers are resolved for events (through targets) and touched by each batch.
	containers *platform.Containers

	touchMu sync.Mutex
	touched map[string]time.Time
}

// New starts a Service; Close stops it.
func New(cfg Config, pool *pgxpool.Pool, containers *platform.Containers, projects *platform.Projects,
	resolver *attribution.Resolver, clk clock.Clock, log *slog.Logger) *Service {
	if cfg.Batch.Flushers <= 0 {
		// One transaction at a time: batches of one project wait for its lead lock anyway, and
		// one flusher takes everything that arrived during the previous flush, however many
		// projects (benchmarks/README.md measures one against two).
		cfg.Batch.Flushers = 1
	}
	s := &Service{pool: pool, containers: containers, bounds: cfg.Bounds.WithDefaults(), resolver: resolver,
		clock: clk, log: log, geo: cfg.Geo, full: cfg.QueueFull, targets: newTargets(projects),
		touched: map[string]time.Time{}}
	s.batcher = batcher.New(cfg.Batch, s.flush)
	return s
}

// Close stores what is queued and stops.
func (s *Service) Close() { s.batcher.Close() }

// Queued is how many events wait to be batched.
func (s *Service) Queued() int { return s.batcher.Queued() }

// Result is the answer to an event.
type Result struct {
	Success   bool    `json:"success"`
	EventID   string  `json:"event_id"`
	LeadID    *string `json:"lead_id"`
	Timestamp int64   `json:"timestamp"`

	refused bool  // not stored: the outboxes are full
	invalid bool  // not stored: PostgreSQL refuses a value of it (setApart)
	failed  error // not stored: the store failed while its batch was set apart
}

// event is one event on its way to storage.
type event struct {
	in         Input
	meta       Meta
	target     Target
	utm        utm.Params
	attr       facts.AdEntity
	attributed bool
	// dims are the event's traffic dimensions (traffic.Dims); touch says it is a marketing touch
	// (journeys.Marketing), a journey touch of its lead.
	dims     facts.TouchDims
	touch    bool
	click    *linkClick
	received time.Time
	raw      []byte
}

// overloadRetryAfter is the Retry-After, in seconds, when the queue is full or a store failed.
const overloadRetryAfter = 2

// Track stores one event for target and answers it. raw is the request body, kept as received.
func (s *Service) Track(ctx context.Context, t Target, in Input, meta Meta, raw []byte) (Result, error) {
	now := s.clock.Now()
	in, err := in.normalize(now)
	if err != nil {
		return Result{}, err
	}
	in.Lead = leads.Locate(ctx, s.geo, in.Lead, meta.ClientIP)
	ev := &event{in: in, meta: meta, target: t, received: now, raw: raw,
		utm: utm.Extract(in.UTM, in.Page.URL, in.Cookies)}
	if ev.attr, ev.attributed, err = s.resolver.Resolve(ctx, t.Project.ID, ev.utm); err != nil {
		return Result{}, err
	}
	ev.dims = traffic.Dims(ev.utm, in.Page.URL, in.Page.Referrer, meta.UserAgent)
	ev.touch = journeys.Marketing(ev.dims, in.Page.URL, t.Container)
	if ev.click, err = s.clickOf(ctx, t, in.ClickID); err != nil {
		return Result{}, err
	}
	r, err := s.batcher.Submit(ctx, ev)
	if err == nil && r.failed != nil {
		err = r.failed
	}
	switch {
	case err == nil && r.invalid:
		return Result{}, apperr.Invalid("The event holds a value that cannot be stored, such as a NUL character or invalid UTF-8.")
	case err == nil && r.refused:
		return Result{}, apperr.Unavailable("Too many events are waiting for the analytics store; retry shortly.", overloadRetryAfter)
	case errors.Is(err, batcher.ErrOverloaded):
		if s.full != nil {
			s.full()
		}
		return Result{}, apperr.Unavailable("Too many events are waiting to be stored; retry shortly.", overloadRetryAfter).WithCause(err)
	case errors.Is(err, batcher.ErrClosed):
		return Result{}, apperr.Unavailable("The server is shutting down; retry shortly.", overloadRetryAfter).WithCause(err)
	case err != nil && ctx.Err() != nil:
		return Result{}, fmt.Errorf("events: the batch was not stored within the request's deadline: %w", err)
	case err != nil:
		return Result{}, apperr.Unavailable("The event could not be stored; retry shortly.", overloadRetryAfter).WithCause(err)
	}
	return r, nil
}

// touchEvery bounds TouchContainer calls to one per container per interval.
const touchEvery = 30 * time.Second

// touch records that events arrived for containers, at most once per container per touchEvery.
func (s *Service) touch(ctx context.Context, containerIDs map[string]bool, now time.Time) {
	for id := range containerIDs {
		s.touchMu.Lock()
		last, ok := s.touched[id]
		due := !ok || now.Sub(last) >= touchEvery
		if due {
			s.touched[id] = now
		}
		s.touchMu.Unlock()
		if !due {
			continue
		}
		if err := s.containers.TouchContainer(ctx, id, now); err != nil {
			s.log.Warn("events: container not touched", "container", id, "error", err.Error())
		}
	}
}
