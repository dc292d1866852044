package ratelimit

import (
	"context"
	"hash/maphash"
	"slices"
	"sync"
	"time"
)

// MemoryFailures is the in-process Failures: each key's attempt times (Unix nanoseconds, oldest
// first, at most the limit) in sharded maps, each behind its own lock. It holds at most about
// maxKeys keys: a shard that is full when a new key arrives drops the keys whose attempts all
// left the window, then, if it must, the key with the fewest attempts in it, so that a flood of
// new keys (e-mails made up by the thousand) evicts the keys nearest their limit last. Counts are
// per process, like Memory's.
type MemoryFailures struct {
	limit    int
	window   time.Duration
	perShard int
	seed     maphash.Seed
	shards   [shardCount]failureShard
}

type failureShard struct {
	mu    sync.Mutex
	times map[string][]int64
}

// NewMemoryFailures allows limit attempts per key within any window, for about maxKeys keys.
func NewMemoryFailures(limit int, window time.Duration, maxKeys int) *MemoryFailures {
	return &MemoryFailures{limit: limit, window: window, perShard: max(1, maxKeys/shardCount), seed: maphash.MakeSeed()}
}

// Attempt reserves an attempt for key at now unless key has the limit within the window. It
// never fails.
func (m *MemoryFailures) Attempt(_ context.Context, key string, now time.Time) (AttemptDecision, error) {
	s := &m.shards[maphash.String(m.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.times == nil {
		s.times = make(map[string][]int64)
	}
	at := now.UnixNano()
	times, known := s.times[key]
	times = m.inWindow(times, at)
	if len(times) >= m.limit {
		s.times[key] = times
		return AttemptDecision{RetryAt: time.Unix(0, times[0]).Add(m.window).UTC()}, nil
	}
	if !known {
		m.makeRoom(s, at)
	}
	times = append(times, at)
	slices.Sort(times) // in order but for a clock set back
	s.times[key] = times
	return AttemptDecision{Allowed: true}, nil
}

// Clear forgets key's attempts. It never fails.
func (m *MemoryFailures) Clear(_ context.Context, key string) error {
	s := &m.shards[maphash.String(m.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.times, key)
	return nil
}

// inWindow drops from times (in place) those that left the window ending at at.
func (m *MemoryFailures) inWindow(times []int64, at int64) []int64 {
	oldest := at - m.window.Nanoseconds()
	i := 0
	for i < len(times) && times[i] <= oldest {
		i++
	}
	return slices.Delete(times, 0, i)
}

// makeRoom frees a place for a new key in a full shard; s.mu is held.
func (m *MemoryFailures) makeRoom(s *failureShard, at int64) {
	if len(s.times) < m.perShard {
		return
	}
	for k, times := range s.times {
		if times = m.inWindow(times, at); len(times) == 0 {
			delete(s.times, k)
		} else {
			s.times[k] = times
		}
	}
	if len(s.times) < m.perShard {
		return
	}
	victim, fewest := "", m.limit+1
	for k, times := range s.times {
		if len(times) < fewest {
			victim, fewest = k, len(times)
		}
	}
	delete(s.times, victim)
}
