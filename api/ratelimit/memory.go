package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

const shardCount = 64

// Memory is an in-process Limiter: counters in sharded maps, each behind its own lock. Memory
// stays bounded by the keys seen in the current window: when a shard is first used in a new
// window it drops every counter of the previous ones. Counts are per process; several instances
// behind a load balancer each allow the full limit, so they need a shared Limiter.
type Memory struct {
	seed   maphash.Seed
	shards [shardCount]shard
}

type shard struct {
	mu     sync.Mutex
	window int64 // Unix seconds of the window the counts belong to
	counts map[string]int
}

// NewMemory returns an empty in-process Limiter.
func NewMemory() *Memory {
	return &Memory{seed: maphash.MakeSeed()}
}

// Take counts one request for key. It never fails. A call whose now falls in a window older than
// the one its shard already moved to (a slow goroutine, a clock stepped back) counts in the
// shard's current window.
func (m *Memory) Take(_ context.Context, key string, limit int, now time.Time) (Decision, error) {
	s := &m.shards[maphash.String(m.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := windowStart(now).Unix(); w > s.window || s.counts == nil {
		s.window = w
		s.counts = make(map[string]int)
	}
	d := Decision{Limit: limit, Reset: time.Unix(s.window, 0).Add(Window).UTC()}
	n := s.counts[key]
	if n >= limit {
		return d, nil
	}
	n++
	s.counts[key] = n
	d.Allowed = true
	d.Remaining = limit - n
	return d, nil
}
