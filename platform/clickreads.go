package platform

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// LinkClick's reads for ingestion: an event names a click by its id (click_id), and the click
// then becomes one of its lead's journey touches (ingest/events, ingest/journeys).

// ClickIn reads click id among the clicks of the workspace's tracking links, on q: its id, time,
// UTM and User-Agent, which never change. ok is false when the workspace has no such click.
func ClickIn(ctx context.Context, q Querier, workspaceID string, id int64) (c LinkClick, ok bool, err error) {
	c.ID = id
	err = q.QueryRow(ctx, `SELECT k.clicked_at, k.utm_source, k.utm_medium, k.utm_campaign, k.utm_content, k.utm_term, k.user_agent
		FROM link_clicks k JOIN tracking_links l ON l.id = k.link_id WHERE k.id = $1 AND l.workspace_id = $2`,
		id, workspaceID).Scan(&c.At, &c.UTM.Source, &c.UTM.Medium, &c.UTM.Campaign, &c.UTM.Content, &c.UTM.Term, &c.UserAgent)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	return c, err == nil, err
}

// QueueLockOpenClicks queues, in the caller's transaction, the lock of the clicks of ids that have
// no lead yet, in id order (so that concurrent transactions lock them in one order); its rows are
// their ids. The transaction then gives them their leads (QueueClickLeads), each once.
func QueueLockOpenClicks(w *pgx.Batch, ids []int64) {
	w.Queue(`SELECT id FROM link_clicks WHERE id = ANY($1) AND lead_id IS NULL ORDER BY id FOR UPDATE`, ids)
}

// LeadClick is a tracking-link click that was given its lead.
type LeadClick struct {
	LinkClick // its id, time, UTM and User-Agent
	LeadID    string
}

// ClicksOfLeads lists, on q, the clicks given to any of leads, oldest first (then by id).
func ClicksOfLeads(ctx context.Context, q Querier, leads []string) ([]LeadClick, error) {
	rows, err := q.Query(ctx, `SELECT id, lead_id, clicked_at, utm_source, utm_medium, utm_campaign, utm_content, utm_term, user_agent
		FROM link_clicks WHERE lead_id = ANY($1) ORDER BY clicked_at, id`, leads)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (LeadClick, error) {
		var c LeadClick
		return c, r.Scan(&c.ID, &c.LeadID, &c.At, &c.UTM.Source, &c.UTM.Medium, &c.UTM.Campaign, &c.UTM.Content, &c.UTM.Term,
			&c.UserAgent)
	})
}
