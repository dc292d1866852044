package answers

import (
	"container/list"
	"sync"
)

// entryOverhead is what an entry costs besides its key and body: the list element, the map's
// slot and the entry itself, counted so that many small answers cannot pass the bound.
const entryOverhead = 160

// Cache is a least-recently-used map of answers, as the bytes sent, bounded by bytes and safe
// for concurrent use. Answers are keyed by the query's normalized form and the data version it
// was read at (engine.Prepared.Key, facts.Versions): a kept answer is served again only while
// nothing it read has changed, so it is byte for byte the answer a fresh read would give.
type Cache struct {
	max int64

	mu      sync.Mutex
	size    int64
	order   list.List // of *entry, the most recently used first
	entries map[string]*list.Element
	stats   Stats
}

type entry struct {
	key  string
	body []byte
}

// Stats are a Cache's counts since it was made, and what it holds now.
type Stats struct {
	Hits, Misses, Evictions int64
	Bytes                   int64 // held now, overheads included
	Entries                 int
}

// NewCache returns a Cache that holds at most maxBytes.
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, entries: map[string]*list.Element{}}
}

func cost(key string, body []byte) int64 { return int64(len(key)+len(body)) + entryOverhead }

// Get returns the answer kept under key. The body is shared: callers must not change it.
func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		c.stats.Misses++
		return nil, false
	}
	c.stats.Hits++
	c.order.MoveToFront(el)
	return el.Value.(*entry).body, true
}

// Has reports whether an answer is kept under key, leaving the counts and the order alone.
func (c *Cache) Has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[key]
	return ok
}

// Put keeps body under key, dropping the least recently used answers to make room. An answer
// larger than the whole bound is not kept. body must not change afterwards.
func (c *Cache) Put(key string, body []byte) {
	n := cost(key, body)
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		old := el.Value.(*entry)
		c.size += n - cost(old.key, old.body)
		old.body = body
		c.order.MoveToFront(el)
	} else {
		c.entries[key] = c.order.PushFront(&entry{key: key, body: body})
		c.size += n
	}
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*entry)
		c.order.Remove(last)
		delete(c.entries, e.key)
		c.size -= cost(e.key, e.body)
		c.stats.Evictions++
	}
}

// Stats returns the counts so far.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Bytes, s.Entries = c.size, len(c.entries)
	return s
}
