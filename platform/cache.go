package platform

import (
	"time"

	"mtk/internal/auth"
)

// KeyCacheTTL is how long a Store trusts what it read of PostgreSQL for the hot read paths
// without reading it again: a verified API key (a busy tracking snippet sends thousands of
// events a second), a login token's standing (logged out, or older than a password change) and a
// project's query scope (a dashboard sends many queries). A change made by another process (the
// CLI, another replica) shows within it; one made through the same Store, at once. A key's expiry
// is checked on every call.
const KeyCacheTTL = 2 * time.Second

// cacheMax bounds each cache; when full, it starts over.
const cacheMax = 10_000

// cachedKey is a verified API key: its principal and expiry.
type cachedKey struct {
	principal auth.Principal
	expires   *time.Time
}
