package events

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/pglock"
)

// Stream is the event outbox as a Drainer drains it: event_outbox rows into the events table.
var Stream = outbox.Stream{Table: eventOutbox, Targets: []string{"events"}, Lock: pglock.EventDrainer, Load: loadEvents}

// NewDrainer returns the Drainer of the event outbox: it moves event_outbox rows into the events
// table and deletes them.
func NewDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *outbox.Drainer {
	return outbox.NewDrainer(pool, ch, clk, log, Stream)
}

// pendingEvent is one event_outbox row.
type pendingEvent struct {
	id  int64
	row EventRow
}

type eventRows []pendingEvent

func loadEvents(ctx context.Context, conn *pgxpool.Conn, limit int, part outbox.Partition) (outbox.Rows, error) {
	rows, err := part.Select(ctx, conn, eventOutbox, `id, `+eventTextColumns+`, ts, received_at, new_lead, value, body`, limit)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingEvent, error) {
		var p pendingEvent
		e := &p.row
		err := r.Scan(&p.id, &e.ProjectID, &e.ContainerID, &e.EventID, &e.Name, &e.AlphaName, &e.Source,
			&e.LeadID, &e.UTMSource, &e.UTMMedium, &e.UTMCampaign, &e.UTMContent, &e.UTMTerm, &e.CampaignID, &e.AdsetID,
			&e.AdID, &e.PageURL, &e.Referrer, &e.Currency, &e.ClientIP, &e.UserAgent, &e.Time, &e.ReceivedAt,
			&e.NewLead, &e.Value, &e.Body)
		return p, err
	})
	return eventRows(got), err
}

func (rs eventRows) Keys() []outbox.RowKey {
	keys := make([]outbox.RowKey, len(rs))
	for i, p := range rs {
		keys[i] = outbox.RowKey{ID: p.id, Project: p.row.ProjectID, TS: p.row.Time}
	}
	return keys
}

// Changes: no answer reads the events table (their facts come through the fact outbox).
func (rs eventRows) Changes() ([]facts.Change, error) { return nil, nil }

// Insert writes the rows the events table does not hold yet, in one INSERT.
func (rs eventRows) Insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error {
	batch, err := ch.PrepareBatch(ctx, `INSERT INTO events (outbox_id, project_id, container_id, event_id, ts,
		received_at, name, alpha_name, source, lead_id, new_lead, utm_source, utm_medium, utm_campaign, utm_content,
		utm_term, campaign_id, adset_id, ad_id, page_url, referrer, value, currency, client_ip, user_agent, body)`)
	if err != nil {
		return fmt.Errorf("events: insert events: %w", err)
	}
	defer batch.Close()
	for _, p := range rs {
		if skip[uint64(p.id)] {
			continue
		}
		e := &p.row
		var newLead uint8
		if e.NewLead {
			newLead = 1
		}
		if err := batch.Append(uint64(p.id), e.ProjectID, e.ContainerID, e.EventID, e.Time.UTC(), e.ReceivedAt.UTC(),
			e.Name, e.AlphaName, e.Source, e.LeadID, newLead, e.UTMSource, e.UTMMedium, e.UTMCampaign, e.UTMContent,
			e.UTMTerm, e.CampaignID, e.AdsetID, e.AdID, e.PageURL, e.Referrer, e.Value, e.Currency, e.ClientIP,
			e.UserAgent, e.Body); err != nil {
			return fmt.Errorf("events: insert events: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("events: insert events: %w", err)
	}
	return nil
}
