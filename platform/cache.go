package platform

import (
	"time"

	"mtk/internal/auth"
)

// KeyCacheTTL is how long the services trust what they read of PostgreSQL for the hot read paths
// without reading it again: a verified API key (a busy tracking snippet sends thousands of
// events a second), a login token's standing (logged out, or older than a password change), a
// user's membership of a workspace (its role and the workspace's tier: a JWT call with
// X-Workspace-Id reads it), a project's query scope (a dashboard sends many queries) and an order
// webhook key's connection and project (a shop sends its orders with one key). A change made through the same Services
// shows at once; one made by another process (the CLI, another replica, SQL by hand) as soon as
// its announcement is heard (Services.Subscribe), and within the TTL whatever happens to the
// listener. A key's expiry is checked on every call.
const KeyCacheTTL = 2 * time.Second

// cacheMax bounds each cache; when full, it starts over.
const cacheMax = 10_000

// cachedKey is a verified API key: its principal and expiry.
type cachedKey struct {
	principal auth.Principal
	expires   *time.Time
}

// expired reports whether the key has expired at now.
func (k cachedKey) expired(now time.Time) bool { return k.expires != nil && !now.Before(*k.expires) }
