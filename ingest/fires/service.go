package fires

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/capi"
	"mtk/ingest/events"
	"mtk/internal/clock"
	"mtk/platform"
)

// Service fires the tracking-link triggers of a workspace (the order webhook
// fires the checkout triggers itself, in its own transaction: ingest/orders).
type Service struct {
	pool       *pgxpool.Pool
	containers *platform.Containers
	clock      clock.Clock
}

// New returns a Service.
func New(pool *pgxpool.Pool, containers *platform.Containers, clk clock.Clock) *Service {
	return &Service{pool: pool, containers: containers, clock: clk}
}

// Click is a platform.ClickHook: it queues, in the click's transaction, the firing of the
// workspace's click_tracking_link triggers, one event per trigger and click.
func (s *Service) Click(ctx context.Context, w *pgx.Batch, c platform.LinkClick) error {
	triggers, err := s.containers.WorkspaceServerTriggers(ctx, c.WorkspaceID, "click_tracking_link")
	if err != nil || len(triggers) == 0 {
		return err
	}
	return QueueAll(w, triggers, Occurrence{Key: "click:" + c.LinkID + ":" + strconv.FormatInt(c.ID, 10), Source: events.SourceWebsite,
		Conversion: capi.Input{EventTime: c.At, ActionSource: capi.Website, ClientIP: c.IP, UserAgent: c.UserAgent},
		UTM:        c.UTM}, s.clock.Now())
}
