// Package journeys is the journey stream: JourneyRow, queued in journey_outbox by the ingest
// services and drained into journeys_by_lead by the generic outbox.Drainer (Stream). Its Backfill
// fills the outbox with what was stored before it existed: every order's current state under its
// lead, every event of a lead that is a marketing touch (Marketing) as a touch, every tracking-link
// click of a lead that is one likewise (ClickTouch), and every lead's merge into another. Live
// writes go through the outbox as they happen (ingest/events, ingest/orders); the backfill is
// idempotent beside them: an order is copied under its row lock only while orders.journey is
// false (a webhook sets it), and a touch only when neither journeys_by_lead nor the outbox holds
// it with its dimensions (by event_id, a click by its click id); a merge row repeated says what the
// first said (a lead's latest merge row counts). A touch stored before its dimensions were
// (BackfillVersion 1) is written again with them, on its stored time, lead and entity: the credit
// worker reads the two rows as one touch (ingest/credits).
package journeys

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/attribution"
	"mtk/ingest/credits"
	"mtk/ingest/traffic"
	"mtk/platform"
	"mtk/platform/utm"
)

// BackfillVersion is what a project's backfill copies (journey_backfill.version): 1 the ad
// touches without dimensions, 2 every marketing touch with its dimensions. A project done at an
// older version is visited again.
const BackfillVersion = 2

// chunk is how many orders or touches one transaction copies.
const chunk = 1000

// leadChunk is how many leads' clicks one statement reads.
const leadChunk = 10_000

// Progress is what the backfill reports after each chunk of a project.
type Progress struct {
	Project         string
	Orders, Touches int
	Done            bool
}

// Backfill copies the stored orders and touches of every project it has not done at
// BackfillVersion yet (all of them again when redo) into the journey outbox, reporting progress
// after each chunk.
func Backfill(ctx context.Context, pool *pgxpool.Pool, ch driver.Conn, resolver *attribution.Resolver, redo bool,
	now time.Time, report func(Progress)) error {
	// What is in journeys_by_lead is skipped below: the journeys rows from before it must be there.
	if err := credits.CopyJourneys(ctx, pool, ch, now); err != nil {
		return err
	}
	projects, err := platform.ProjectZones(ctx, pool)
	if err != nil {
		return err
	}
	if !redo {
		rows, err := pool.Query(ctx, "SELECT project_id FROM journey_backfill WHERE version >= $1", BackfillVersion)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		done := map[string]bool{}
		for _, id := range ids {
			done[id] = true
		}
		projects = slices.DeleteFunc(projects, func(p platform.ProjectZone) bool { return done[p.ID] })
	}
	for _, p := range projects {
		pr := Progress{Project: p.ID}
		for {
			n, err := copyOrders(ctx, pool, p.ID, p.Timezone, now)
			if err != nil {
				return fmt.Errorf("journeys: orders of %s: %w", p.ID, err)
			}
			pr.Orders += n
			if n < chunk {
				break
			}
			report(pr)
		}
		if err := copyMerges(ctx, pool, p.ID, p.Timezone, now); err != nil {
			return fmt.Errorf("journeys: lead merges of %s: %w", p.ID, err)
		}
		chunkDone := func(n int) { pr.Touches += n; report(pr) }
		tw := touchWriter{pool: pool, resolver: resolver, project: p.ID, zone: p.Timezone, now: now, chunkDone: chunkDone}
		n, err := copyTouches(ctx, pool, ch, &tw)
		if err != nil {
			return fmt.Errorf("journeys: touches of %s: %w", p.ID, err)
		}
		tw = touchWriter{pool: pool, resolver: resolver, project: p.ID, zone: p.Timezone, now: now, chunkDone: chunkDone}
		m, err := copyClicks(ctx, pool, ch, &tw)
		if err != nil {
			return fmt.Errorf("journeys: link click touches of %s: %w", p.ID, err)
		}
		pr.Touches, pr.Done = n+m, true
		if _, err := pool.Exec(ctx, `INSERT INTO journey_backfill (project_id, done_at, version) VALUES ($1, $2, $3)
			ON CONFLICT (project_id) DO UPDATE SET done_at = EXCLUDED.done_at, version = EXCLUDED.version`,
			p.ID, now, BackfillVersion); err != nil {
			return err
		}
		report(pr)
	}
	return nil
}

// copyOrders copies up to chunk orders of the project that the outbox does not hold, locked, in
// one transaction, and marks them; it returns how many it marked.
func copyOrders(ctx context.Context, pool *pgxpool.Pool, project, zone string, now time.Time) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT connection_id, transaction_id, status, value, currency, product_cost, created_at,
			coalesce(lead_id, '') FROM orders WHERE project_id = $1 AND NOT journey
			ORDER BY connection_id, transaction_id LIMIT $2 FOR UPDATE`, project, chunk)
		if err != nil {
			return err
		}
		type order struct {
			conn, id, status, currency, lead string
			value, cost                      int64
			created                          time.Time
		}
		got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (order, error) {
			var o order
			return o, r.Scan(&o.conn, &o.id, &o.status, &o.value, &o.currency, &o.cost, &o.created, &o.lead)
		})
		if err != nil || len(got) == 0 {
			return err
		}
		n = len(got)
		var out []JourneyRow
		conns, ids := make([]string, n), make([]string, n)
		for i, o := range got {
			conns[i], ids[i] = o.conn, o.id
			r, ok := OrderJourney(project, zone, o.conn+"/"+o.id, o.lead, o.status, o.currency, o.created, o.value, o.cost)
			if ok {
				out = append(out, r)
			}
		}
		b := &pgx.Batch{}
		QueueJourneys(b, out, now)
		b.Queue(`UPDATE orders o SET journey = true FROM unnest($1::text[], $2::text[]) AS k (c, t)
			WHERE o.connection_id = k.c AND o.transaction_id = k.t`, conns, ids)
		return tx.SendBatch(ctx, b).Close()
	})
	return n, err
}

// copyTouches copies the project's events of a lead that are marketing touches and that neither
// journeys_by_lead nor the outbox holds with their dimensions, chunk by chunk, in (time, id) order;
// it returns how many it copied. The outbox is read first: a row leaving it lands in
// journeys_by_lead before, so that no touch is missed between the reads.
func copyTouches(ctx context.Context, pool *pgxpool.Pool, ch driver.Conn, tw *touchWriter) (int, error) {
	st, err := storedTouches(ctx, pool, ch, tw.project, OriginEvent)
	if err != nil {
		return 0, err
	}
	sites, err := platform.ProjectSites(ctx, pool, tw.project)
	if err != nil {
		return 0, err
	}
	crows, err := ch.Query(ctx, `SELECT event_id, ts, lead_id, container_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term,
			page_url, referrer, user_agent
		FROM events WHERE project_id = ? AND lead_id != ''
		AND event_id NOT IN (SELECT event_id FROM journeys_by_lead WHERE project_id = ? AND kind = 'touch' AND origin = ? AND device != '')
		ORDER BY ts, event_id`, tw.project, tw.project, OriginEvent)
	if err != nil {
		return 0, err
	}
	defer crows.Close()
	for crows.Next() {
		var id, lead, container, page, referrer, ua string
		var ts time.Time
		var p utm.Params
		if err := crows.Scan(&id, &ts, &lead, &container, &p.Source, &p.Medium, &p.Campaign, &p.Content, &p.Term,
			&page, &referrer, &ua); err != nil {
			return tw.total, err
		}
		d := traffic.Dims(p, page, referrer, ua)
		if err := tw.add(ctx, st, OriginEvent, id, lead, ts, p, d, Marketing(d, page, sites[container])); err != nil {
			return tw.total, err
		}
	}
	if err := crows.Err(); err != nil {
		return tw.total, err
	}
	return tw.total, tw.flush(ctx)
}

// copyClicks copies the tracking-link clicks of the project's leads that are marketing touches and
// that neither journeys_by_lead nor the outbox holds with their dimensions, chunk by chunk; it
// returns how many it copied. A click gets its lead once (ingest/events), in the transaction that
// queues its touch, so the clicks are read first: the touch of any of them is then in the outbox,
// or in journeys_by_lead before it leaves the outbox (read in that order).
func copyClicks(ctx context.Context, pool *pgxpool.Pool, ch driver.Conn, tw *touchWriter) (int, error) {
	rows, err := pool.Query(ctx, "SELECT id FROM leads WHERE project_id = $1", tw.project)
	if err != nil {
		return 0, err
	}
	leadIDs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, err
	}
	var clicks []platform.LeadClick
	for part := range slices.Chunk(leadIDs, leadChunk) {
		cs, err := platform.ClicksOfLeads(ctx, pool, part)
		if err != nil {
			return 0, err
		}
		clicks = append(clicks, cs...)
	}
	slices.SortFunc(clicks, func(a, b platform.LeadClick) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID))
	})
	st, err := storedTouches(ctx, pool, ch, tw.project, OriginLinkClick)
	if err != nil {
		return 0, err
	}
	crows, err := ch.Query(ctx, "SELECT event_id FROM journeys_by_lead WHERE project_id = ? AND kind = 'touch' AND origin = ? AND device != ''",
		tw.project, OriginLinkClick)
	if err != nil {
		return 0, err
	}
	for crows.Next() {
		var id string
		if err := crows.Scan(&id); err != nil {
			crows.Close()
			return 0, err
		}
		st.done[id] = true
	}
	crows.Close()
	if err := crows.Err(); err != nil {
		return 0, err
	}
	for _, c := range clicks {
		d, touch := ClickTouch(c.LinkClick)
		if err := tw.add(ctx, st, OriginLinkClick, strconv.FormatInt(c.ID, 10), c.LeadID, c.At, c.UTM, d, touch); err != nil {
			return tw.total, err
		}
	}
	return tw.total, tw.flush(ctx)
}

// stored are the touches of one origin of a project already written, by id: done those with their
// dimensions, bare the first row of those written without them (before schema/clickhouse/0013;
// since then every touch's device is set, traffic.Device never being empty).
type stored struct {
	done map[string]bool
	bare map[string]JourneyRow
}

// storedTouches reads the project's touches of origin in the outbox, then the bare ones in
// journeys_by_lead (those with dimensions there are left to the caller's query).
func storedTouches(ctx context.Context, pool *pgxpool.Pool, ch driver.Conn, project, origin string) (stored, error) {
	st := stored{done: map[string]bool{}, bare: map[string]JourneyRow{}}
	rows, err := pool.Query(ctx, `SELECT event_id, device != '', ts, lead_id, `+strings.Join(facts.AdEntityColumns, ", ")+`
		FROM journey_outbox WHERE project_id = $1 AND kind = 'touch' AND origin = $2`, project, origin)
	if err != nil {
		return st, err
	}
	var r JourneyRow
	var dims bool
	if _, err := pgx.ForEachRow(rows, append([]any{&r.EventID, &dims, &r.Time, &r.LeadID}, r.AdEntity.Dest()...), func() error {
		st.note(r, dims)
		return nil
	}); err != nil {
		return st, err
	}
	crows, err := ch.Query(ctx, `SELECT event_id, ts, lead_id, `+strings.Join(facts.AdEntityColumns, ", ")+`
		FROM journeys_by_lead WHERE project_id = ? AND kind = 'touch' AND origin = ? AND device = ''`, project, origin)
	if err != nil {
		return st, err
	}
	defer crows.Close()
	for crows.Next() {
		var r JourneyRow
		if err := crows.Scan(append([]any{&r.EventID, &r.Time, &r.LeadID}, r.AdEntity.Dest()...)...); err != nil {
			return st, err
		}
		st.note(r, false)
	}
	return st, crows.Err()
}

// note records a stored touch row r, with its dimensions or not.
func (st stored) note(r JourneyRow, dims bool) {
	if dims {
		st.done[r.EventID] = true
	} else if _, ok := st.bare[r.EventID]; !ok {
		st.bare[r.EventID] = r
	}
}

// touchWriter queues the touches a backfill of one project finds, chunk by chunk, each chunk in a
// transaction.
type touchWriter struct {
	pool          *pgxpool.Pool
	resolver      *attribution.Resolver
	project, zone string
	now           time.Time
	chunkDone     func(int)
	pending       []JourneyRow
	total         int
}

// add queues the touch of origin and id, of lead at ts, with UTM p and dimensions d, unless st
// holds it with its dimensions: a bare one again on its stored time, lead and entity with d; a
// new one when it is a marketing touch, on the entity p resolves to (none when it resolves to none).
func (tw *touchWriter) add(ctx context.Context, st stored, origin, id, lead string, ts time.Time, p utm.Params,
	d facts.TouchDims, touch bool) error {
	if st.done[id] {
		return nil
	}
	st.done[id] = true
	if r, ok := st.bare[id]; ok {
		tw.pending = append(tw.pending, TouchRow(tw.project, tw.zone, origin, id, r.LeadID, r.Time, r.AdEntity, d))
	} else if touch {
		a, _, err := tw.resolver.Resolve(ctx, tw.project, p)
		if err != nil {
			return err
		}
		tw.pending = append(tw.pending, TouchRow(tw.project, tw.zone, origin, id, lead, ts, a, d))
	}
	if len(tw.pending) == chunk {
		return tw.flush(ctx)
	}
	return nil
}

func (tw *touchWriter) flush(ctx context.Context) error {
	if len(tw.pending) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	QueueJourneys(b, tw.pending, tw.now)
	if err := pgx.BeginFunc(ctx, tw.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() }); err != nil {
		return err
	}
	tw.total += len(tw.pending)
	tw.chunkDone(len(tw.pending))
	tw.pending = tw.pending[:0]
	return nil
}

// copyMerges queues a merge row for every merged lead of the project (in time zone zone): where
// it points now.
func copyMerges(ctx context.Context, pool *pgxpool.Pool, project, zone string, now time.Time) error {
	_, err := pool.Exec(ctx, `WITH ins AS (INSERT INTO journey_outbox (project_id, timezone, kind, ts, lead_id, merged_into, created_at)
			SELECT l.project_id, $3::text, 'merge', $2, l.id, l.merged_into, $2 FROM leads l
			WHERE l.project_id = $1 AND l.merged_into IS NOT NULL RETURNING 1)
		INSERT INTO outbox_sizes AS s (outbox, backend, n) SELECT 'journey_outbox', pg_backend_pid(), count(*) FROM ins
		ON CONFLICT (outbox, backend) DO UPDATE SET n = s.n + EXCLUDED.n`, project, now, zone)
	return err
}
