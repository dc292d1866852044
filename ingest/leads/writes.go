package leads

import (
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/journeys"
	"mtk/platform/utm"
)

// profile is what an upsert changes on a lead besides its identifiers: the members it sends
// (empty: unchanged) and its UTM (when hasUTM, all five members are replaced).
type profile struct {
	name, firstName, lastName, externalID, city, state, zip, country string
	hasUTM                                                           bool
	utm                                                              utm.Params
}

func profileOf(u Upsert) profile {
	p := u.Identity
	return profile{name: trim(p.Name), firstName: trim(p.FirstName), lastName: trim(p.LastName),
		externalID: trim(p.ExternalID), city: trim(p.City), state: trim(p.State), zip: trim(p.Zip),
		country: trim(p.Country), hasUTM: !u.UTM.IsZero(), utm: u.UTM}
}

// then is p followed by q: q's non-empty members win.
func (p profile) then(q profile) profile {
	take := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	take(&p.name, q.name)
	take(&p.firstName, q.firstName)
	take(&p.lastName, q.lastName)
	take(&p.externalID, q.externalID)
	take(&p.city, q.city)
	take(&p.state, q.state)
	take(&p.zip, q.zip)
	take(&p.country, q.country)
	if q.hasUTM {
		p.hasUTM, p.utm = true, q.utm
	}
	return p
}

// change is what a batch writes to one lead row: a new row (insert) or an update of an existing
// one; keys are identifiers the row takes, profile the upserts' members folded in order.
type change struct {
	id         string
	insert     bool
	mergedInto string
	keys       keys
	profile    profile
}

// writes collects a batch's changes so that they go out as a few set-based statements: the new
// rows in one INSERT, then the merges in order, then one UPDATE of the existing rows. The order
// keeps the meaning of applying the upserts one by one: a merge also re-points rows inserted by
// the same batch, and later upserts of a lead are folded into its one insert or update.
type writes struct {
	byID    map[string]*change
	inserts []*change
	updates []*change
	merges  [][2]string // loser, survivor
}

func (w *writes) get(id string) *change {
	if w.byID == nil {
		w.byID = map[string]*change{}
	}
	c, ok := w.byID[id]
	if !ok {
		c = &change{id: id}
		w.byID[id] = c
		w.updates = append(w.updates, c)
	}
	return c
}

func (w *writes) insert(id, mergedInto string, k keys, p profile) {
	if w.byID == nil {
		w.byID = map[string]*change{}
	}
	c := &change{id: id, insert: true, mergedInto: mergedInto, keys: k, profile: p}
	w.byID[id] = c
	w.inserts = append(w.inserts, c)
}

// setKey records that lead takes value as its identifier of one kind (it had none).
func (w *writes) setKey(lead string, set func(*keys)) { set(&w.get(lead).keys) }

func (w *writes) touch(lead string, p profile) {
	c := w.get(lead)
	c.profile = c.profile.then(p)
}

func (w *writes) merge(loser, survivor string) {
	w.merges = append(w.merges, [2]string{loser, survivor})
}

// dropUnchanged drops the updates that would change nothing: no identifier taken, and a profile
// that folds into the row's stored one without changing it. Most events of a known lead repeat
// what it holds, and such a row is not rewritten (its updated_at stays: the last change).
func (w *writes) dropUnchanged(st *state) {
	kept := w.updates[:0]
	for _, c := range w.updates {
		r := st.rows[c.id]
		if c.keys != (keys{}) || r == nil || r.stored == nil || r.stored.then(c.profile) != *r.stored {
			kept = append(kept, c)
		}
	}
	w.updates = kept
}

// queue queues the statements on b.
func (w *writes) queue(b *pgx.Batch, projectID, zone string, now time.Time) {
	if len(w.inserts) > 0 {
		cols := columnsOf(w.inserts, true)
		b.Queue(`INSERT INTO leads (id, project_id, merged_into, email, phone, document, name, first_name, last_name,
			external_id, city, state, zip, country, utm_source, utm_medium, utm_campaign, utm_content, utm_term,
			created_at, updated_at)
			SELECT id, $1, NULLIF(m, ''), NULLIF(e, ''), NULLIF(p, ''), NULLIF(d, ''), n, fn, ln, x, c, s, z, co,
				us, um, uc, ut, ue, $2, $2
			FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
				$10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
				$17::text[], $18::text[], $19::text[], $20::text[])
				AS u (id, m, e, p, d, n, fn, ln, x, c, s, z, co, us, um, uc, ut, ue)`,
			append([]any{projectID, now}, cols...)...)
	}
	for _, m := range w.merges {
		journeys.QueueLeadMerge(b, projectID, zone, m[0], m[1], now)
		b.Queue(mergeSQL, projectID, m[0], m[1], now)
	}
	var updates []*change
	for _, c := range w.updates {
		if !c.insert {
			updates = append(updates, c)
		}
	}
	if len(updates) == 0 {
		return
	}
	b.Queue(updateSQL, append([]any{projectID, now}, columnsOf(updates, false)...)...)
}

// mergeSQL points a merged lead ($2), and every row merged into it, at the survivor ($3).
const mergeSQL = `UPDATE leads SET merged_into = $3, updated_at = $4
	WHERE project_id = $1 AND (id = $2 OR merged_into = $2)`

// updateSQL writes the changes of existing rows, one per element of the arrays (see columnsOf).
const updateSQL = `UPDATE leads l SET
	email = coalesce(NULLIF(u.e, ''), l.email),
	phone = coalesce(NULLIF(u.p, ''), l.phone),
	document = coalesce(NULLIF(u.d, ''), l.document),
	name = CASE WHEN u.n <> '' THEN u.n ELSE l.name END,
	first_name = CASE WHEN u.fn <> '' THEN u.fn ELSE l.first_name END,
	last_name = CASE WHEN u.ln <> '' THEN u.ln ELSE l.last_name END,
	external_id = CASE WHEN u.x <> '' THEN u.x ELSE l.external_id END,
	city = CASE WHEN u.c <> '' THEN u.c ELSE l.city END,
	state = CASE WHEN u.s <> '' THEN u.s ELSE l.state END,
	zip = CASE WHEN u.z <> '' THEN u.z ELSE l.zip END,
	country = CASE WHEN u.co <> '' THEN u.co ELSE l.country END,
	utm_source = CASE WHEN u.hu THEN u.us ELSE l.utm_source END,
	utm_medium = CASE WHEN u.hu THEN u.um ELSE l.utm_medium END,
	utm_campaign = CASE WHEN u.hu THEN u.uc ELSE l.utm_campaign END,
	utm_content = CASE WHEN u.hu THEN u.ut ELSE l.utm_content END,
	utm_term = CASE WHEN u.hu THEN u.ue ELSE l.utm_term END,
	updated_at = $2
	FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
		$10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
		$17::text[], $18::text[], $19::text[], $20::text[], $21::boolean[])
		AS u (id, m, e, p, d, n, fn, ln, x, c, s, z, co, us, um, uc, ut, ue, hu)
	WHERE l.project_id = $1 AND l.id = u.id`

// columnsOf turns changes into the column arrays of the statements above: id, merged_into, the
// three identifiers, the eight profile members and the five UTM members, then (for updates) a
// flag telling whether the UTM is replaced. An insert's UTM is its latest (empty without one).
func columnsOf(cs []*change, insert bool) []any {
	text := make([][]string, 18)
	for i := range text {
		text[i] = make([]string, len(cs))
	}
	hasUTM := make([]bool, len(cs))
	for j, c := range cs {
		p, u := c.profile, c.profile.utm
		for i, v := range []string{c.id, c.mergedInto, c.keys.email, c.keys.phone, c.keys.document, p.name,
			p.firstName, p.lastName, p.externalID, p.city, p.state, p.zip, p.country,
			u.Source, u.Medium, u.Campaign, u.Content, u.Term} {
			text[i][j] = v
		}
		hasUTM[j] = p.hasUTM
	}
	out := make([]any, 0, 19)
	for _, col := range text {
		out = append(out, col)
	}
	if !insert {
		out = append(out, hasUTM)
	}
	return out
}
