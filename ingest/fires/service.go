package fires

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/capi"
	"mtk/ingest/events"
	"mtk/internal/clock"
	"mtk/platform"
)

// Service fires the tracking-link and chat-message triggers of a workspace (the order webhook
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
	triggers, err := s.containers.WorkspaceServerTriggers(ctx, c.WorkspaceID, platform.TriggerTrackingLink)
	if err != nil || len(triggers) == 0 {
		return err
	}
	return QueueAll(w, triggers, Occurrence{Key: "click:" + c.LinkID + ":" + strconv.FormatInt(c.ID, 10), Source: events.SourceWebsite,
		Conversion: capi.Input{EventTime: c.At, ActionSource: capi.Website, ClientIP: c.IP, UserAgent: c.UserAgent},
		UTM:        c.UTM}, s.clock.Now())
}

// Messages fires, for each decoded message holding a whatsapp_keyword_message trigger's keyword,
// that trigger: one event per trigger and message text, however often the text is decoded
// (within the event id window). A tracked message's event carries its click's UTM.
func (s *Service) Messages(ctx context.Context, workspaceID string, msgs []platform.DecodedMessage) error {
	triggers, err := s.containers.WorkspaceServerTriggers(ctx, workspaceID, platform.TriggerWhatsAppKeyword)
	if err != nil || len(triggers) == 0 {
		return err
	}
	now := s.clock.Now()
	w := &pgx.Batch{}
	for _, m := range msgs {
		digest := sha256.Sum256([]byte(m.Text))
		o := Occurrence{Key: "message:" + hex.EncodeToString(digest[:16]), Source: events.SourceWhatsApp,
			Conversion: capi.Input{EventTime: now, ActionSource: capi.Chat}}
		if m.Params != nil {
			o.UTM = *m.Params
		}
		for _, t := range triggers {
			if !HoldsKeyword(m.DecodedText, t.Config.Trigger.Keyword) {
				continue
			}
			if err := Queue(w, t, o, now); err != nil {
				return err
			}
		}
	}
	if w.Len() == 0 {
		return nil
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, w).Close() })
}
