package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"mtk/internal/ids"
)

// Redis is the Limiter shared by every replica: one counter per key and window, a Redis string
// named for the window's start, counted with INCR and dropped a window after the window ends.
// Its answers are Memory's, but that a refused request is counted too (the answer is the same:
// refused, none remaining). Its Failures method gives the per-key attempt limit on the same
// server.
type Redis struct {
	client redis.UniversalClient
	prefix string
}

// NewRedis limits over client; every key it writes starts with prefix, so that several
// deployments (or tests) can share one server.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// takeScript: KEYS[1] the window's counter; ARGV[1] its time to live in milliseconds. It
// counts the request and answers the count, in one command (EVALSHA) instead of the four of a
// MULTI/INCR/PEXPIRE/EXEC pipeline. The expiry is set only when the counter is new: every Take
// of a window asks for the same end (the window's end plus a window, by the caller's clock), so
// setting it again at each request, as the pipeline did, moved it nowhere.
var takeScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`)

// Take counts one request for key in the window that holds now. The counter expires a window
// after the window ends, counted from now as the caller's clock tells it, so that a Redis clock
// that differs from the replicas' neither drops a live counter nor keeps a dead one for long.
func (r *Redis) Take(ctx context.Context, key string, limit int, now time.Time) (Decision, error) {
	start := windowStart(now)
	reset := start.Add(Window)
	name := r.prefix + "rl:" + strconv.FormatInt(start.Unix(), 10) + ":" + key
	n, err := takeScript.Run(ctx, r.client, []string{name}, (reset.Sub(now) + Window).Milliseconds()).Int()
	if err != nil {
		return Decision{}, fmt.Errorf("redis rate limit: %w", err)
	}
	return Decision{Allowed: n <= limit, Limit: limit, Remaining: max(0, limit-n), Reset: reset.UTC()}, nil
}

// Failures is the attempt limit (limit attempts per key within any window) kept on r's server.
func (r *Redis) Failures(limit int, window time.Duration) *RedisFailures {
	return &RedisFailures{client: r.client, prefix: r.prefix + "fail:", limit: limit, window: window}
}

// RedisFailures is the Failures shared by every replica: a sorted set per key of its attempts
// scored by their time in microseconds (exact in a score's double), trimmed to the window and
// checked in one script, so that concurrent attempts on several replicas reserve exactly the
// limit. Clear is DEL.
type RedisFailures struct {
	client redis.UniversalClient
	prefix string
	limit  int
	window time.Duration
}

// attemptScript: KEYS[1] the key's set; ARGV now (µs), window (µs), limit, a unique member.
// It answers {1} when the attempt is reserved, {0, oldest attempt (µs)} when refused.
var attemptScript = redis.NewScript(`
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2])}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return {1}
`)

// Attempt reserves an attempt for key at now unless key has the limit within the window.
func (f *RedisFailures) Attempt(ctx context.Context, key string, now time.Time) (AttemptDecision, error) {
	res, err := attemptScript.Run(ctx, f.client, []string{f.prefix + key},
		now.UnixMicro(), f.window.Microseconds(), f.limit, strconv.FormatInt(now.UnixMicro(), 10)+":"+ids.Random(8)).Int64Slice()
	if err != nil {
		return AttemptDecision{}, fmt.Errorf("redis attempt limit: %w", err)
	}
	if res[0] == 1 {
		return AttemptDecision{Allowed: true}, nil
	}
	return AttemptDecision{RetryAt: time.UnixMicro(res[1]).Add(f.window).UTC()}, nil
}

// Clear forgets key's attempts.
func (f *RedisFailures) Clear(ctx context.Context, key string) error {
	if err := f.client.Del(ctx, f.prefix+key).Err(); err != nil {
		return fmt.Errorf("redis attempt limit: %w", err)
	}
	return nil
}
