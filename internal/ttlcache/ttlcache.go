// Package ttlcache is mtk's one in-memory cache: each value is trusted for a fixed time after it
// was stored, at most Max values are kept (a full cache starts over, which is cheaper than
// tracking use and good enough for caches that hold what is hot anyway), and Load fetches a
// missing value once however many callers ask for it at the same time. A value that Load read
// while Forget or Clear ran is returned but not kept: the read may predate what made it forgotten.
// A key whose Load failed (an unknown credential) leaves nothing behind, so a flood of keys that
// all fail neither grows the cache nor, by filling it, makes it start over on the good ones.
package ttlcache

import (
	"sync"
	"time"
)

// Cache maps keys to values stored at some instant and trusted for TTL after it.
type Cache[K comparable, V any] struct {
	ttl time.Duration
	max int

	mu      sync.Mutex
	entries map[K]*entry[V]
	// forgets counts the calls of Forget and Clear: a Load that saw it move does not store its
	// value.
	forgets uint64
}

type entry[V any] struct {
	load  sync.Mutex // held by the one Load that fetches the value
	value V
	at    time.Time
	set   bool
}

// New returns a cache trusting values for ttl and holding at most max of them.
func New[K comparable, V any](ttl time.Duration, max int) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, max: max, entries: map[K]*entry[V]{}}
}

// fresh reports whether e holds a value stored less than TTL before now (and not after it: a
// clock set back distrusts everything).
func (c *Cache[K, V]) fresh(e *entry[V], now time.Time) bool {
	return e.set && now.Sub(e.at) < c.ttl && !now.Before(e.at)
}

// entry is key's entry, made when missing; c.mu is held.
func (c *Cache[K, V]) entry(key K) *entry[V] {
	e, ok := c.entries[key]
	if !ok {
		if len(c.entries) >= c.max {
			c.entries = map[K]*entry[V]{}
		}
		e = &entry[V]{}
		c.entries[key] = e
	}
	return e
}

// Get returns key's value if it is fresh at now.
func (c *Cache[K, V]) Get(key K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok && c.fresh(e, now) {
		return e.value, true
	}
	var zero V
	return zero, false
}

// Put stores v as key's value at now.
func (c *Cache[K, V]) Put(key K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(key)
	e.value, e.at, e.set = v, now, true
}

// Load returns key's value if it is fresh at now, else the value of load, stored at now unless
// load fails or Forget or Clear ran meanwhile. Concurrent Loads of one key call load once: the
// others wait and take its value.
func (c *Cache[K, V]) Load(key K, now time.Time, load func() (V, error)) (V, error) {
	c.mu.Lock()
	e := c.entry(key)
	if c.fresh(e, now) {
		v := e.value
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	e.load.Lock()
	defer e.load.Unlock()
	c.mu.Lock()
	if c.fresh(e, now) { // loaded while this call waited
		v := e.value
		c.mu.Unlock()
		return v, nil
	}
	forgets := c.forgets
	c.mu.Unlock()
	v, err := load()
	if err != nil {
		c.mu.Lock()
		if !e.set && c.entries[key] == e { // made for this call (callers still waiting load again)
			delete(c.entries, key)
		}
		c.mu.Unlock()
		return v, err
	}
	c.mu.Lock()
	if c.forgets == forgets {
		e.value, e.at, e.set = v, now, true
	}
	c.mu.Unlock()
	return v, nil
}

// Forget drops the entries that match.
func (c *Cache[K, V]) Forget(match func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	for k, e := range c.entries {
		if match(k, e.value) {
			delete(c.entries, k)
		}
	}
}

// Clear drops every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	clear(c.entries)
}
