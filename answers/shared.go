package answers

import (
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"mtk/internal/ids"
)

// SharedConfig bounds the shared tier; a zero field takes its default.
type SharedConfig struct {
	// Wait bounds one exchange with Redis (dial, read or write: default 250 ms, as the rate
	// limits' exchanges): a Redis that does not answer costs a query this much once, then the
	// tier is skipped for Pause. Less makes a busy machine's scheduling delays count as failures.
	Wait time.Duration
	// Pause is how long the tier is skipped after Redis failed (default 1 s): then queries are
	// answered as without it, by this replica alone, and the next one tries Redis again.
	Pause time.Duration
	// TTL is how long an answer stays in Redis (default 1 h). A moved data version makes an
	// answer unreachable at once (its key holds the version); TTL only frees the memory.
	TTL time.Duration
	// Lease is how long a replica's claim to compute an answer holds (default 30 s), so that
	// the claim of a replica that died mid-query lapses.
	Lease time.Duration
	// Await bounds how long a replica waits for the answer another replica claimed (default
	// 2 s, and at most half of what is left of the query's deadline) before it reads the
	// answer itself.
	Await time.Duration
}

func (c SharedConfig) withDefaults() SharedConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.Wait, 250*time.Millisecond)
	def(&c.Pause, time.Second)
	def(&c.TTL, time.Hour)
	def(&c.Lease, 30*time.Second)
	def(&c.Await, 2*time.Second)
	return c
}

// Shared is the tier of answers that replicas share, in Redis behind each replica's Cache:
// answers are kept, as the bytes sent, under the same key as in Cache (the query and the data
// version it was read at), so that a version moved by a write on any replica makes the old
// answer unreachable everywhere. A replica that finds no answer claims it (SET NX with a lease)
// and reads it while the others wait for it, so that N replicas run each statement once.
//
// Redis failing or slow never fails a query: every exchange is bounded by Wait, and after a
// failure the tier is skipped for Pause, the queries answered by this replica alone as without
// it; the change of state is logged once each way.
type Shared struct {
	rdb    *redis.Client
	prefix string
	cfg    SharedConfig
	log    *slog.Logger

	stats     sharedCounts
	pausedTil atomic.Int64 // unix nanoseconds until which the tier is skipped
	down      atomic.Bool  // Redis failed last, for one log line per change
}

type sharedCounts struct{ hits, misses, errors, waits atomic.Int64 }

// SharedStats are a Shared tier's counts since it was made.
type SharedStats struct {
	// Hits are answers served from Redis, Misses lookups that found none (the answer was read),
	// Waits lookups that waited for another replica's answer, Errors failed exchanges.
	Hits, Misses, Waits, Errors int64
}

// NewShared returns the tier on the Redis that opts name, its keys under prefix. opts' dial,
// read and write timeouts are cut to cfg.Wait and nothing is retried. Close it when done.
func NewShared(opts *redis.Options, prefix string, cfg SharedConfig, log *slog.Logger) *Shared {
	cfg = cfg.withDefaults()
	o := *opts
	for _, d := range []*time.Duration{&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout} {
		if *d <= 0 || *d > cfg.Wait {
			*d = cfg.Wait
		}
	}
	o.MaxRetries = -1 // go-redis: -1 is no retries
	return &Shared{rdb: redis.NewClient(&o), prefix: prefix + "answers:", cfg: cfg, log: log}
}

// Close closes the connections to Redis.
func (s *Shared) Close() error { return s.rdb.Close() }

// Stats returns the counts so far.
func (s *Shared) Stats() SharedStats {
	return SharedStats{Hits: s.stats.hits.Load(), Misses: s.stats.misses.Load(), Waits: s.stats.waits.Load(),
		Errors: s.stats.errors.Load()}
}

// fetchScript returns {1, answer} when the answer is kept; else it claims the answer for the
// caller ({2}) unless another caller holds the claim ({0}). One round trip either way.
var fetchScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2} end
return {0}`)

// keepScript keeps an answer (when ARGV[3] is given) and ends the caller's claim, if it still
// holds it (a lapsed claim may be another caller's now).
var keepScript = redis.NewScript(`
if #ARGV > 2 then redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2]) end
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1`)

// Claim is what Fetch leaves the caller who must read the answer: Keep or Drop it once read.
// One without a token (the wait ran out, or the answer is read afresh) shares the answer without
// ending anyone's claim; the zero value shares nothing.
type Claim struct {
	s          *Shared
	key, token string
}

// Fetch returns the answer kept under key, waiting for it while another replica reads it. When
// it returns none, the caller reads the answer and then calls the Claim's Keep or Drop.
func (s *Shared) Fetch(ctx context.Context, key string) ([]byte, bool, Claim) {
	if s.paused() {
		return nil, false, Claim{}
	}
	keys := s.keys(key)
	token := ids.Random(12)
	deadline := time.Now().Add(s.cfg.Await)
	if end, ok := ctx.Deadline(); ok { // leave the caller half its time to read the answer itself
		if half := time.Now().Add(time.Until(end) / 2); half.Before(deadline) {
			deadline = half
		}
	}
	pause, waited := time.Millisecond, false
	for {
		res, err := fetchScript.Run(ctx, s.rdb, keys, token, s.cfg.Lease.Milliseconds()).Slice()
		if err != nil {
			s.failed(ctx, err)
			return nil, false, s.Unclaimed(key)
		}
		s.answered()
		switch res[0].(int64) {
		case 1:
			s.stats.hits.Add(1)
			body, _ := res[1].(string)
			return []byte(body), true, Claim{}
		case 2:
			s.stats.misses.Add(1)
			return nil, false, Claim{s: s, key: key, token: token}
		}
		if !waited {
			waited = true
			s.stats.waits.Add(1)
		}
		if time.Now().Add(pause).After(deadline) { // the claim's owner is slow or gone
			s.stats.misses.Add(1)
			return nil, false, s.Unclaimed(key)
		}
		select {
		case <-ctx.Done():
			return nil, false, Claim{}
		case <-time.After(pause):
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// Has reports whether an answer is kept under key (explain asks), without claiming it; false
// when Redis fails or the tier is skipped.
func (s *Shared) Has(ctx context.Context, key string) bool {
	if s.paused() {
		return false
	}
	n, err := s.rdb.Exists(ctx, s.keys(key)[0]).Result()
	if err != nil {
		s.failed(ctx, err)
		return false
	}
	s.answered()
	return n == 1
}

// Unclaimed is the Claim of an answer read without a claim (Cache-Control: no-cache): Keep
// shares it, ending no one's claim.
func (s *Shared) Unclaimed(key string) Claim { return Claim{s: s, key: key} }

// Keep shares body, the answer read, with the other replicas and ends the claim.
func (c Claim) Keep(ctx context.Context, body []byte) {
	if c.s != nil {
		c.s.keep(ctx, c.key, c.token, body)
	}
}

// Drop ends the claim without an answer (the read failed, or is not to be kept): the replicas
// waiting for it read it themselves.
func (c Claim) Drop(ctx context.Context) {
	if c.s != nil && c.token != "" {
		c.s.keep(ctx, c.key, c.token, nil)
	}
}

func (s *Shared) keep(ctx context.Context, key, token string, body []byte) {
	if s.paused() {
		return
	}
	args := []any{token, s.cfg.TTL.Milliseconds()}
	if body != nil {
		args = append(args, body)
	}
	if err := keepScript.Run(ctx, s.rdb, s.keys(key), args...).Err(); err != nil {
		s.failed(ctx, err)
		return
	}
	s.answered()
}

// keys are the Redis keys of an answer and of its claim. Cache keys are bytes (a hash and a
// version), written in hex.
func (s *Shared) keys(key string) []string {
	k := s.prefix + hex.EncodeToString([]byte(key))
	return []string{k, k + ":claim"}
}

func (s *Shared) paused() bool { return time.Now().UnixNano() < s.pausedTil.Load() }

// failed counts an exchange that failed and skips the tier for Pause, logging the change when
// the tier was up. A query given up by its caller is no failure of Redis.
func (s *Shared) failed(ctx context.Context, err error) {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return
	}
	s.stats.errors.Add(1)
	s.pausedTil.Store(time.Now().Add(s.cfg.Pause).UnixNano())
	if s.down.CompareAndSwap(false, true) {
		s.log.Warn("shared answers: Redis failed; answering from this replica alone", "error", err.Error(),
			"retry_in", s.cfg.Pause.String())
	}
}

// answered notes an exchange that worked, logging the change when the tier was down.
func (s *Shared) answered() {
	if s.down.Load() && s.down.CompareAndSwap(true, false) {
		s.log.Info("shared answers: Redis answers again; answers are shared")
	}
}
