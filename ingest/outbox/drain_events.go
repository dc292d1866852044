package outbox

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/internal/clock"
	"mtk/internal/pglock"
)

// NewEventDrainer returns the Drainer of the event outbox: it moves event_outbox rows into the
// events table and deletes them.
func NewEventDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *Drainer {
	return newDrainer(pool, ch, clk, log, drainTable{
		name: "event_outbox", targets: []string{"events"}, lock: pglock.EventDrainer, load: loadEvents,
	})
}

type pendingEvent struct {
	id  int64
	row EventRow
}

type eventRows []pendingEvent

func loadEvents(ctx context.Context, conn *pgxpool.Conn, limit int, part partition) (drainRows, error) {
	rows, err := conn.Query(ctx, `SELECT id, `+eventTextColumns+`, ts, received_at,
		new_lead, value, body FROM event_outbox WHERE `+partitionWhere+` ORDER BY id LIMIT $1`, limit, part.count, part.index)
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

func (rs eventRows) keys() []rowKey {
	keys := make([]rowKey, len(rs))
	for i, p := range rs {
		keys[i] = rowKey{id: p.id, project: p.row.ProjectID, ts: p.row.Time}
	}
	return keys
}

// insert writes the rows the events table does not hold yet, in one INSERT.
// changes: no answer reads the events table (their facts come through the fact outbox).
func (rs eventRows) changes() ([]facts.Change, error) { return nil, nil }

func (rs eventRows) insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error {
	batch, err := ch.PrepareBatch(ctx, `INSERT INTO events (outbox_id, project_id, container_id, event_id, ts,
		received_at, name, alpha_name, source, lead_id, new_lead, utm_source, utm_medium, utm_campaign, utm_content,
		utm_term, campaign_id, adset_id, ad_id, page_url, referrer, value, currency, client_ip, user_agent, body)`)
	if err != nil {
		return fmt.Errorf("outbox: insert events: %w", err)
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
			return fmt.Errorf("outbox: insert events: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("outbox: insert events: %w", err)
	}
	return nil
}
