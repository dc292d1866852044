// Package batcher is a group-commit batcher: callers submit items and wait; a collector groups
// waiting items into batches and hands each batch to one of a few flushers, which store it with
// one call and answer every item of it.
//
// Batching is natural: a batch is handed over as soon as a flusher is free, so a lone item is
// stored within Linger plus one flush, and under load every flush takes everything that arrived
// during the previous one, up to MaxBatch. Linger, a short wait that lets a burst gather, applies
// only to a batch begun while a flusher was idle: one begun while every flusher was busy has
// gathered during their flushes already, and a flusher waiting out its Linger would sit idle.
// No batch waits longer than MaxWait for a free flusher to be offered to. Memory is bounded: the
// queue holds at most QueueSize items, and Submit refuses an item at once with ErrOverloaded when
// it is full (a slow or unreachable store shows up as a full queue), never growing it.
package batcher

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"mtk/internal/recovered"
)

// Config configures a Batcher.
type Config struct {
	// MaxBatch is the most items in one flush (default 1000).
	MaxBatch int
	// Linger is how long a batch begun while a flusher was idle gathers items before it is
	// offered to one (default 2 ms). A batch begun while every flusher was busy is offered at once.
	Linger time.Duration
	// MaxWait bounds how long a batch gathers while every flusher is busy before the collector
	// stops taking items and waits for a flusher (default 50 ms).
	MaxWait time.Duration
	// QueueSize is the most items waiting to be batched (default 10,000).
	QueueSize int
	// Flushers is how many batches are stored at once (default 2).
	Flushers int
	// FlushTimeout bounds one flush (default 10 s).
	FlushTimeout time.Duration
	// Observe, when set, is told after every flush how many items it stored, how long it took
	// and its error (metrics). It runs on the flusher, so it must be quick.
	Observe func(size int, took time.Duration, err error)
}

func (c Config) withDefaults() Config {
	if c.MaxBatch <= 0 {
		c.MaxBatch = 1000
	}
	if c.Linger <= 0 {
		c.Linger = 2 * time.Millisecond
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 50 * time.Millisecond
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 10_000
	}
	if c.Flushers <= 0 {
		c.Flushers = 2
	}
	if c.FlushTimeout <= 0 {
		c.FlushTimeout = 10 * time.Second
	}
	return c
}

// Validate reports impossible values.
func (c Config) Validate() error {
	c = c.withDefaults()
	if c.Linger > c.MaxWait {
		return fmt.Errorf("batcher: Linger %s exceeds MaxWait %s", c.Linger, c.MaxWait)
	}
	return nil
}

// FlushFunc stores a batch and returns one result per item, in order. An error fails every item.
type FlushFunc[T, R any] func(ctx context.Context, items []T) ([]R, error)

// ErrOverloaded is returned by Submit when the queue is full.
var ErrOverloaded = errors.New("batcher: queue full")

// ErrClosed is returned by Submit after Close.
var ErrClosed = errors.New("batcher: closed")

type result[R any] struct {
	v   R
	err error
}

type item[T, R any] struct {
	ctx  context.Context
	v    T
	done chan result[R]
}

// Batcher groups items into batches for a FlushFunc.
type Batcher[T, R any] struct {
	cfg     Config
	flush   FlushFunc[T, R]
	queue   chan *item[T, R]
	batches chan []*item[T, R]
	busy    atomic.Int32 // flushers storing a batch
	// began, in tests, hears when the collector begins a batch and whether it offers it at once.
	began  func(offered bool)
	mu     sync.RWMutex // guards closed against Submit racing Close
	closed bool
	wg     sync.WaitGroup
}

// New starts a batcher. It panics on an invalid Config.
func New[T, R any](cfg Config, flush FlushFunc[T, R]) *Batcher[T, R] {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	cfg = cfg.withDefaults()
	b := &Batcher[T, R]{cfg: cfg, flush: flush,
		queue: make(chan *item[T, R], cfg.QueueSize), batches: make(chan []*item[T, R])}
	b.wg.Add(1 + cfg.Flushers)
	go b.collect()
	for range cfg.Flushers {
		go b.flushLoop()
	}
	return b
}

// Submit queues v and waits until its batch is stored, or until ctx ends (then ctx's error): v is
// then stored all the same if its batch was being stored already, and never if not. It fails at
// once with ErrOverloaded when the queue is full.
func (b *Batcher[T, R]) Submit(ctx context.Context, v T) (R, error) {
	var zero R
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	it := &item[T, R]{ctx: ctx, v: v, done: make(chan result[R], 1)}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return zero, ErrClosed
	}
	select {
	case b.queue <- it:
		b.mu.RUnlock()
	default:
		b.mu.RUnlock()
		return zero, ErrOverloaded
	}
	select {
	case r := <-it.done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Queued is how many items wait in the queue (not those in a batch being gathered or stored).
func (b *Batcher[T, R]) Queued() int { return len(b.queue) }

// Close stops taking items, stores those already queued and returns when every flush is done.
func (b *Batcher[T, R]) Close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// collect forms batches: it takes items until the batch is full, and offers the batch to the
// flushers at once when every flusher was busy as it began, else once Linger has passed; after
// MaxWait it stops taking items and only waits.
func (b *Batcher[T, R]) collect() {
	defer b.wg.Done()
	defer close(b.batches)
	linger := time.NewTimer(time.Hour)
	maxWait := time.NewTimer(time.Hour)
	linger.Stop()
	maxWait.Stop()
	var batch []*item[T, R]
	offered, full := false, false
	for {
		if len(batch) == 0 {
			it, ok := <-b.queue
			if !ok {
				return
			}
			batch = append(make([]*item[T, R], 0, b.cfg.MaxBatch), it)
			maxWait.Reset(b.cfg.MaxWait)
			offered, full = false, false
			if int(b.busy.Load()) < b.cfg.Flushers {
				linger.Reset(b.cfg.Linger)
			} else {
				offered = true
			}
			if b.began != nil {
				b.began(offered)
			}
		}
		in := b.queue
		if full || len(batch) >= b.cfg.MaxBatch {
			in = nil
		}
		var out chan []*item[T, R]
		if offered || in == nil {
			out = b.batches
		}
		select {
		case it, ok := <-in:
			if !ok { // closed: hand over what is left, then stop
				b.batches <- batch
				return
			}
			batch = append(batch, it)
		case <-linger.C:
			offered = true
		case <-maxWait.C:
			full = true
		case out <- batch:
			linger.Stop()
			maxWait.Stop()
			batch = nil
		}
	}
}

func (b *Batcher[T, R]) flushLoop() {
	defer b.wg.Done()
	for batch := range b.batches {
		b.busy.Add(1)
		b.store(batch)
		b.busy.Add(-1)
	}
}

// store flushes one batch and answers its items; a panic of the flush fails them. Items whose
// caller stopped waiting are answered with their context's error and not stored.
func (b *Batcher[T, R]) store(batch []*item[T, R]) {
	live := batch[:0]
	for _, it := range batch {
		if err := it.ctx.Err(); err != nil {
			it.done <- result[R]{err: err}
			continue
		}
		live = append(live, it)
	}
	if batch = live; len(batch) == 0 {
		return
	}
	values := make([]T, len(batch))
	for i, it := range batch {
		values[i] = it.v
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.FlushTimeout)
	defer cancel()
	start := time.Now()
	var (
		out []R
		err error
	)
	err = recovered.Call(func() (err error) {
		out, err = b.flush(ctx, values)
		return err
	})
	if err == nil && len(out) != len(batch) {
		err = fmt.Errorf("batcher: flush returned %d results for %d items", len(out), len(batch))
	}
	if b.cfg.Observe != nil {
		b.cfg.Observe(len(batch), time.Since(start), err)
	}
	for i, it := range batch {
		if err != nil {
			it.done <- result[R]{err: err}
			continue
		}
		it.done <- result[R]{v: out[i]}
	}
}
