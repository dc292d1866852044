package outbox

import (
	"context"
	"log/slog"
	"time"

	"mtk/internal/recovered"
)

// Interval is how often the fact drainer and the conversion deliverer look for work when idle.
const Interval = time.Second

// EventsInterval is how often the event drainer looks for events: about the most an event waits
// for ClickHouse beyond the insert. Every second, as for facts: inserts five times as large, and
// five times fewer parts for ClickHouse to merge, than every 200 ms.
const EventsInterval = time.Second

// BatchTimeout bounds one batch of a worker's step (a drain's load, insert and settle; a
// delivery's requests and their recording): a store that stops answering fails the batch, which
// the next step tries again (exactly once all the same), instead of holding the worker.
const BatchTimeout = 2 * time.Minute

// Run calls step every interval until ctx ends and logs failures, a panic among them (recovered:
// the next step runs as after any failure): the long-running loop of a worker inside `mtk serve`. A step does all the work waiting (the Drainers' and the Deliverer's
// RunOnce loop over full batches), so Run never calls it again at once: between two steps, rows
// gather into one larger ClickHouse insert instead of many small parts that the server must then
// merge.
func Run(ctx context.Context, interval time.Duration, log *slog.Logger, name string, step func(context.Context) (int, error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		err := recovered.Call(func() (err error) {
			_, err = step(ctx)
			return err
		})
		if err != nil && ctx.Err() == nil {
			log.Error("outbox worker failed", "worker", name, "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
