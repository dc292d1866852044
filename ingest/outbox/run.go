package outbox

import (
	"context"
	"log/slog"
	"time"
)

// Interval is how often the fact drainer and the conversion deliverer look for work when idle.
const Interval = time.Second

// EventsInterval is how often the event drainer looks for events when idle: the most an event
// waits for ClickHouse, beyond the insert, when the server is idle.
const EventsInterval = 200 * time.Millisecond

// Run calls step every interval until ctx ends, at once again when a step did work, and logs
// failures: the long-running loop of a worker inside `mtk serve`.
func Run(ctx context.Context, interval time.Duration, log *slog.Logger, name string, step func(context.Context) (int, error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := step(ctx)
		if err != nil && ctx.Err() == nil {
			log.Error("outbox worker failed", "worker", name, "error", err.Error())
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
