package adsim

import (
	"sync"
	"time"
)

// quota counts API requests per access token in fixed one-minute windows of the simulator's clock.
type quota struct {
	mu        sync.Mutex
	perMinute int // 0: unlimited
	window    time.Time
	used      map[string]int
}

// take counts one request of token at now. It returns 0 when the request may go on, else the
// seconds until the window resets (the Retry-After).
func (q *quota) take(token string, now time.Time) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.perMinute == 0 {
		return 0
	}
	if w := now.Truncate(time.Minute); !w.Equal(q.window) {
		q.window, q.used = w, map[string]int{}
	}
	if q.used[token] >= q.perMinute {
		return retrySeconds(now, q.window.Add(time.Minute))
	}
	q.used[token]++
	return 0
}

func (q *quota) limit() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.perMinute
}

// SetQuota sets how many API requests each access token may make per clock minute (0: no
// limit) and starts a fresh window.
func (s *Sim) SetQuota(perMinute int) {
	s.quota.mu.Lock()
	defer s.quota.mu.Unlock()
	s.quota.perMinute = max(perMinute, 0)
	s.quota.window, s.quota.used = time.Time{}, nil
}

// Quota returns the per-minute request quota of each access token (0: no limit).
func (s *Sim) Quota() int { return s.quota.limit() }
