package platform

import (
	"sync"
	"time"

	"mtk/internal/auth"
)

// KeyCacheTTL is how long a Store trusts what it read of PostgreSQL for the hot read paths
// without reading it again: a verified API key (a busy tracking snippet sends thousands of
// events a second) and a project's query scope (a dashboard sends many queries). A change made
// by another process (the CLI, another replica) shows within it; one made through the same
// Store, at once. A key's expiry is checked on every call.
const KeyCacheTTL = 2 * time.Second

// cacheMax bounds each cache; when full, it starts over.
const cacheMax = 10_000

// ttlCache holds values read at some time, each trusted for KeyCacheTTL after it.
type ttlCache[V any] struct {
	mu      sync.Mutex
	entries map[string]cached[V]
}

type cached[V any] struct {
	value   V
	fetched time.Time
}

func (c *ttlCache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.Sub(e.fetched) >= KeyCacheTTL || now.Before(e.fetched) {
		var zero V
		return zero, false
	}
	return e.value, true
}

func (c *ttlCache[V]) put(key string, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= cacheMax {
		c.entries = map[string]cached[V]{}
	}
	c.entries[key] = cached[V]{value: v, fetched: now}
}

// forget drops the entries whose value matches.
func (c *ttlCache[V]) forget(match func(V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if match(e.value) {
			delete(c.entries, k)
		}
	}
}

// cachedKey is a verified API key: its principal and expiry.
type cachedKey struct {
	principal auth.Principal
	expires   *time.Time
}
