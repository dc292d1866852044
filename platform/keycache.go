package platform

import (
	"sync"
	"time"

	"mtk/internal/auth"
)

// KeyCacheTTL is how long a verified API key is trusted without reading PostgreSQL again: a key
// revoked by another process (the CLI, another replica) stops working within it; one revoked
// through this Store stops at once. Expiry is checked on every call.
const KeyCacheTTL = 2 * time.Second

// keyCacheMax bounds the cache; when full, it starts over.
const keyCacheMax = 10_000

// keyCache holds recently verified keys by token hash, so that a busy key (a tracking snippet
// sending thousands of events a second) costs one PostgreSQL read per KeyCacheTTL, not one per
// request.
type keyCache struct {
	mu   sync.Mutex
	keys map[string]cachedKey
}

type cachedKey struct {
	principal auth.Principal
	expires   *time.Time
	fetched   time.Time
}

func (c *keyCache) get(hash string, now time.Time) (cachedKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[hash]
	if !ok || now.Sub(k.fetched) >= KeyCacheTTL || now.Before(k.fetched) {
		return cachedKey{}, false
	}
	return k, true
}

func (c *keyCache) put(hash string, k cachedKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil || len(c.keys) >= keyCacheMax {
		c.keys = map[string]cachedKey{}
	}
	c.keys[hash] = k
}

// forget drops the key with id keyID.
func (c *keyCache) forget(keyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for hash, k := range c.keys {
		if k.principal.KeyID == keyID {
			delete(c.keys, hash)
		}
	}
}
