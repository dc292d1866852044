package events

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultMaxBacklog is how many events may wait in the event outbox for ClickHouse before new
// events are refused.
const DefaultMaxBacklog = 1_000_000

// backlogCheckEvery is how often the backlog is counted again.
const backlogCheckEvery = 5 * time.Second

// backlog tells whether the event outbox holds MaxBacklog events or more (ClickHouse down or far
// behind): PostgreSQL's disk, unlike memory, bounds the wait, and this bounds PostgreSQL's disk.
// It counts (at most max rows) at most once per backlogCheckEvery, in the call of one request.
type backlog struct {
	pool *pgxpool.Pool
	max  int

	full    atomic.Bool
	mu      sync.Mutex
	checked time.Time
}

// allow reports whether the backlog has room, counting it again when the last count is older
// than backlogCheckEvery. A failed count leaves the last answer.
func (b *backlog) allow(ctx context.Context, now time.Time) bool {
	b.mu.Lock()
	due := now.Sub(b.checked) >= backlogCheckEvery
	if due {
		b.checked = now
	}
	b.mu.Unlock()
	if due {
		var n int
		if err := b.pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM event_outbox LIMIT $1) b", b.max).Scan(&n); err == nil {
			b.full.Store(n >= b.max)
		}
	}
	return !b.full.Load()
}
