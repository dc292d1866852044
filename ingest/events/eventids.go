package events

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/leads"
)

// EventIDWindow is how long an event_id identifies an event within its project: a repeat
// within it is answered with the first event and stored nowhere (table event_ids).
const EventIDWindow = 7 * 24 * time.Hour

// eventKey is what identifies an event: its id within its project and name (as Meta's
// event_name + event_id), so that one event's id sent under another name claims nothing of it.
type eventKey struct{ project, name, id string }

// keyOf is ev's eventKey. Its name is config.name, else config.alpha.name (one is required).
func keyOf(ev *event) eventKey {
	name := ev.in.Config.Name
	if name == "" && ev.in.Config.Alpha != nil {
		name = ev.in.Config.Alpha.Name
	}
	return eventKey{ev.target.Project.ID, name, ev.in.EventID}
}

// firstEvent is what a repeat of an event is answered with.
type firstEvent struct {
	leadID string
	ts     int64
}

// claims are a batch's claim of its event ids: which events are first (claimed here), and for
// the others the event they repeat.
type claims struct {
	keys    []eventKey // distinct, in the batch's order
	claimed map[eventKey]bool
	first   map[eventKey]firstEvent
}

// queueClaims queues, inside the batch's transaction, the claim of the batch's distinct event
// ids (taking over ids older than EventIDWindow) and the read of their rows. A concurrent batch
// that claimed the same id first makes the INSERT wait for it; the read that follows sees it.
func queueClaims(b *pgx.Batch, evs []*event, now time.Time) *claims {
	c := &claims{claimed: map[eventKey]bool{}, first: map[eventKey]firstEvent{}}
	seen := map[eventKey]bool{}
	var projects, names, ids []string
	var ts []int64
	tsOf := map[eventKey]int64{}
	for _, ev := range evs {
		k := keyOf(ev)
		if seen[k] {
			continue
		}
		seen[k] = true
		c.keys = append(c.keys, k)
		tsOf[k] = *ev.in.Timestamp
	}
	// In a fixed order, so that concurrent batches claiming the same ids lock them alike.
	sorted := slices.SortedFunc(slices.Values(c.keys), func(a, b eventKey) int {
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id))
	})
	for _, k := range sorted {
		projects, names, ids, ts = append(projects, k.project), append(names, k.name), append(ids, k.id), append(ts, tsOf[k])
	}
	b.Queue(`INSERT INTO event_ids (project_id, event_name, event_id, ts, created_at)
		SELECT p, n, e, t, $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(p, n, e, t)
		ON CONFLICT (project_id, event_name, event_id) DO UPDATE SET lead_id = NULL, ts = excluded.ts, created_at = excluded.created_at
		WHERE event_ids.created_at < $6
		RETURNING project_id, event_name, event_id`, projects, names, ids, ts, now, now.Add(-EventIDWindow))
	b.Queue(`SELECT project_id, event_name, event_id, coalesce(lead_id, ''), ts FROM event_ids
		WHERE (project_id, event_name, event_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`, projects, names, ids)
	return c
}

// read reads the results of queueClaims.
func (c *claims) read(br pgx.BatchResults) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	var k eventKey
	if _, err := pgx.ForEachRow(rows, []any{&k.project, &k.name, &k.id}, func() error { c.claimed[k] = true; return nil }); err != nil {
		return err
	}
	rows, err = br.Query()
	if err != nil {
		return err
	}
	var f firstEvent
	_, err = pgx.ForEachRow(rows, []any{&k.project, &k.name, &k.id, &f.leadID, &f.ts}, func() error { c.first[k] = f; return nil })
	return err
}

// firsts says, for each event of the batch, whether it is stored (it claimed its id: the first
// of the batch's events with that id, and not a repeat of a stored one), and the index of the
// batch's first event with its id.
func (c *claims) firsts(evs []*event) (stored []bool, firstOf []int) {
	at := map[eventKey]int{}
	stored, firstOf = make([]bool, len(evs)), make([]int, len(evs))
	for i, ev := range evs {
		k := keyOf(ev)
		j, seen := at[k]
		if !seen {
			at[k], j = i, i
		}
		firstOf[i] = j
		stored[i] = !seen && c.claimed[k]
	}
	return stored, firstOf
}

// queueLeads records the leads of the stored events, in one statement.
func (c *claims) queueLeads(b *pgx.Batch, evs []*event, stored []bool, found []leads.Result) {
	var projects, names, ids, leadIDs []string
	for i, ev := range evs {
		if stored[i] && found[i].LeadID != "" {
			k := keyOf(ev)
			projects, names, ids, leadIDs = append(projects, k.project), append(names, k.name), append(ids, k.id), append(leadIDs, found[i].LeadID)
		}
	}
	if len(ids) > 0 {
		b.Queue(`UPDATE event_ids e SET lead_id = u.l FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(p, n, i, l)
			WHERE e.project_id = u.p AND e.event_name = u.n AND e.event_id = u.i`, projects, names, ids, leadIDs)
	}
}

// IdempotentEventID is the event_id of an event sent without one under an Idempotency-Key: the
// same for every call with that key in its scope, so that a retry after a crash (the event
// stored, its idempotency record never finished) is a repeat of the stored event, not a second.
func IdempotentEventID(scope, key string) string {
	h := sha256.Sum256([]byte(scope + "\x00" + key))
	return "evt_" + hex.EncodeToString(h[:12])
}

// PurgeEventIDs deletes the event ids older than EventIDWindow; a scheduled job calls it.
func PurgeEventIDs(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int64, error) {
	tag, err := pool.Exec(ctx, "DELETE FROM event_ids WHERE created_at < $1", now.Add(-EventIDWindow))
	return tag.RowsAffected(), err
}
