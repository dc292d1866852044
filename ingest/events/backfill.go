package events

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/attribution"
	"mtk/ingest/factstream"
	"mtk/internal/apperr"
	"mtk/platform"
	"mtk/platform/utm"
)

// Backfill writes the business rows of the events stored before the business family (see
// schema/postgres/0017: the event outbox ids up to business_backfill.events_before, and 0), read
// back from ClickHouse's events table in (project, time, event id) order. Each batch's rows are
// queued in the fact outbox in the transaction that moves the backfill's cursor past them, so a
// crash anywhere and a rerun write each event's row once, and a finished backfill does nothing.
type Backfill struct {
	Pool     *pgxpool.Pool
	CH       driver.Conn
	Resolver *attribution.Resolver
	Projects *platform.Projects
	Now      func() time.Time
}

// cursor is the backfill's progress (business_backfill).
type cursor struct {
	before  int64
	project string
	ts      time.Time
	eventID string
	done    bool
	events  int64
}

// ErrEventsWaiting means events stored before the business family still wait in the event
// outbox: the backfill reads them once the event drainer has moved them to ClickHouse.
var ErrEventsWaiting = errors.New("events: events stored before the business facts still wait in the event outbox")

// Step writes the rows of at most limit events and returns how many events it read, how many
// it has read in all, and whether it is finished.
func (b *Backfill) Step(ctx context.Context, limit int) (read int, total int64, finished bool, err error) {
	err = pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
		var c cursor
		var ts *time.Time
		if err := tx.QueryRow(ctx, `SELECT events_before, project_id, ts, event_id, events_done, events
			FROM business_backfill FOR UPDATE`).Scan(&c.before, &c.project, &ts, &c.eventID, &c.done, &c.events); err != nil {
			return err
		}
		total, finished = c.events, c.done
		if c.done {
			return nil
		}
		if err := eventsDrained(ctx, tx, c.before); err != nil {
			return err
		}
		if ts != nil {
			c.ts = *ts
		}
		evs, err := b.read(ctx, c, limit)
		if err != nil {
			return err
		}
		rows, err := b.rows(ctx, evs)
		if err != nil {
			return err
		}
		w := &pgx.Batch{}
		factstream.QueueBiz(w, rows, b.Now())
		finished = len(evs) < limit
		if len(evs) > 0 {
			last := evs[len(evs)-1]
			c.project, c.ts, c.eventID = last.ProjectID, last.Time, last.EventID
		}
		read, total = len(evs), c.events+int64(len(evs))
		w.Queue(`UPDATE business_backfill SET project_id = $1, ts = $2, event_id = $3, events_done = $4, events = $5`,
			c.project, c.ts, c.eventID, finished, total)
		return tx.SendBatch(ctx, w).Close()
	})
	return read, total, finished, err
}

// read returns the next limit stored events after the cursor.
func (b *Backfill) read(ctx context.Context, c cursor, limit int) ([]EventRow, error) {
	rows, err := b.CH.Query(ctx, `SELECT project_id, ts, event_id, name, alpha_name, lead_id, new_lead, utm_source,
		utm_medium, utm_campaign, utm_content, utm_term, campaign_id, page_url, referrer, currency, user_agent
		FROM events WHERE outbox_id <= ?
		AND (project_id > ? OR (project_id = ? AND (ts > ? OR (ts = ? AND event_id > ?))))
		ORDER BY project_id, ts, event_id LIMIT ?`,
		uint64(max(c.before, 0)), c.project, c.project, c.ts.UTC(), c.ts.UTC(), c.eventID, limit)
	if err != nil {
		return nil, fmt.Errorf("events: backfill: read events: %w", err)
	}
	defer rows.Close()
	var out []EventRow
	for rows.Next() {
		var e EventRow
		var newLead uint8
		if err := rows.Scan(&e.ProjectID, &e.Time, &e.EventID, &e.Name, &e.AlphaName, &e.LeadID, &newLead, &e.UTMSource,
			&e.UTMMedium, &e.UTMCampaign, &e.UTMContent, &e.UTMTerm, &e.CampaignID, &e.PageURL, &e.Referrer,
			&e.Currency, &e.UserAgent); err != nil {
			return nil, err
		}
		e.NewLead = newLead == 1
		out = append(out, e)
	}
	return out, rows.Err()
}

// rows are the business rows of evs: each attributed as ingestion attributes it (by its UTM,
// against the entities synced now) when it was attributed when stored; the events of deleted
// projects write none.
func (b *Backfill) rows(ctx context.Context, evs []EventRow) ([]factstream.BizRow, error) {
	zones := map[string]string{}
	var out []factstream.BizRow
	for _, e := range evs {
		zone, ok := zones[e.ProjectID]
		if !ok {
			p, err := b.Projects.Project(ctx, e.ProjectID)
			if ae, isApp := apperr.As(err); isApp && ae.Status == 404 {
				zones[e.ProjectID] = ""
				continue
			} else if err != nil {
				return nil, err
			}
			zone, zones[e.ProjectID] = p.Timezone, p.Timezone
		}
		if zone == "" {
			continue
		}
		var attr facts.AdEntity
		if e.CampaignID != "" {
			a, ok, err := b.Resolver.Resolve(ctx, e.ProjectID, utm.Params{Source: e.UTMSource, Medium: e.UTMMedium,
				Campaign: e.UTMCampaign, Content: e.UTMContent, Term: e.UTMTerm})
			if err != nil {
				return nil, err
			}
			if ok {
				attr = a
			}
		}
		if r, ok := BizRowOf(e, attr, zone); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// eventsDrained is ErrEventsWaiting while the event outbox still holds ids up to before: a
// backfill reads ClickHouse's events, so the ones stored before its cursor must have landed.
func eventsDrained(ctx context.Context, tx pgx.Tx, before int64) error {
	var waiting bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM event_outbox WHERE id <= $1)", before).Scan(&waiting); err != nil {
		return err
	}
	if waiting {
		return ErrEventsWaiting
	}
	return nil
}
