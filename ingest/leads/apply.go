package leads

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"mtk/internal/ids"
)

// row is what Apply knows of a lead row: its root and, for roots, their own identifiers.
type row struct {
	root    string
	created time.Time // the root's
	own     keys      // the root's own identifiers
}

// state is one project's leads as Apply sees them while it works through a batch.
type state struct {
	rows  map[string]*row   // by lead id
	byKey map[string]string // "e:<email>", "p:<phone>", "d:<document>" → lead id
}

func (s *state) rootOf(id string) *row { return s.rows[s.rows[id].root] }

func keyNames(k keys) []string {
	var out []string
	if k.email != "" {
		out = append(out, "e:"+k.email)
	}
	if k.phone != "" {
		out = append(out, "p:"+k.phone)
	}
	if k.document != "" {
		out = append(out, "d:"+k.document)
	}
	return out
}

// Apply resolves ups, in order, to the leads of one project and queues the writes on tx (the
// caller's transaction), under the project's lead lock (see the package comment). It returns
// one Result per Upsert.
func Apply(ctx context.Context, tx pgx.Tx, projectID string, ups []Upsert, now time.Time) ([]Result, error) {
	var emails, phones, documents []string
	for _, u := range ups {
		k := u.Identity.keys()
		if k.email != "" {
			emails = append(emails, k.email)
		}
		if k.phone != "" {
			phones = append(phones, k.phone)
		}
		if k.document != "" {
			documents = append(documents, k.document)
		}
	}
	results := make([]Result, len(ups))
	if len(emails)+len(phones)+len(documents) == 0 {
		return results, nil
	}
	st, err := lockAndLoad(ctx, tx, projectID, emails, phones, documents)
	if err != nil {
		return nil, err
	}
	w := &pgx.Batch{}
	for i, u := range ups {
		k := u.Identity.keys()
		if k == (keys{}) {
			continue
		}
		results[i] = st.apply(w, projectID, u, k, now)
	}
	for i := range results {
		if results[i].LeadID != "" {
			results[i].LeadID = st.rows[results[i].LeadID].root
		}
	}
	if err := tx.SendBatch(ctx, w).Close(); err != nil {
		return nil, fmt.Errorf("leads: write: %w", err)
	}
	return results, nil
}

// lockAndLoad takes the project's lead lock, then reads the rows that hold any of the
// identifiers, with their roots: two statements in one round trip, the read after the lock.
func lockAndLoad(ctx context.Context, tx pgx.Tx, projectID string, emails, phones, documents []string) (*state, error) {
	b := &pgx.Batch{}
	b.Queue("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "mtk.leads:"+projectID)
	b.Queue(`SELECT l.id, r.id, r.created_at, coalesce(l.email, ''), coalesce(l.phone, ''),
		coalesce(l.document, ''), coalesce(r.email, ''), coalesce(r.phone, ''), coalesce(r.document, '')
		FROM leads l JOIN leads r ON r.id = coalesce(l.merged_into, l.id)
		WHERE l.project_id = $1 AND (l.email = ANY($2) OR l.phone = ANY($3) OR l.document = ANY($4))`,
		projectID, emails, phones, documents)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("leads: lock: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("leads: load: %w", err)
	}
	defer rows.Close()
	st := &state{rows: map[string]*row{}, byKey: map[string]string{}}
	for rows.Next() {
		var id, root string
		var created time.Time
		var k, rk keys
		if err := rows.Scan(&id, &root, &created, &k.email, &k.phone, &k.document, &rk.email, &rk.phone, &rk.document); err != nil {
			return nil, err
		}
		st.rows[id] = &row{root: root}
		if _, ok := st.rows[root]; !ok || root == id {
			st.rows[root] = &row{root: root, created: created, own: rk}
		}
		for _, name := range keyNames(k) {
			st.byKey[name] = id
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("leads: load: %w", err)
	}
	rows.Close()
	return st, br.Close()
}

// apply resolves one identity and queues its writes on w; it returns the lead id it resolved to
// (a root at the time).
func (st *state) apply(w *pgx.Batch, projectID string, u Upsert, k keys, now time.Time) Result {
	var roots []string
	for _, name := range keyNames(k) {
		if id, ok := st.byKey[name]; ok {
			if r := st.rows[id].root; !contains(roots, r) {
				roots = append(roots, r)
			}
		}
	}
	if len(roots) == 0 {
		id := ids.New(ids.Lead)
		st.rows[id] = &row{root: id, created: now, own: k}
		for _, name := range keyNames(k) {
			st.byKey[name] = id
		}
		insertLead(w, id, projectID, "", k, u, now)
		return Result{LeadID: id, New: true}
	}
	survivor := roots[0]
	for _, r := range roots[1:] {
		a, b := st.rows[r], st.rows[survivor]
		if a.created.Before(b.created) || a.created.Equal(b.created) && r < survivor {
			survivor = r
		}
	}
	for _, r := range roots {
		if r != survivor {
			st.merge(w, projectID, r, survivor, now)
		}
	}
	st.addKeys(w, projectID, survivor, k, now)
	updateProfile(w, survivor, u, now)
	return Result{LeadID: survivor}
}

// merge points loser, and every row merged into it, at survivor.
func (st *state) merge(w *pgx.Batch, projectID, loser, survivor string, now time.Time) {
	for _, r := range st.rows {
		if r.root == loser {
			r.root = survivor
		}
	}
	w.Queue(`UPDATE leads SET merged_into = $3, updated_at = $4 WHERE project_id = $1 AND (id = $2 OR merged_into = $2)`,
		projectID, loser, survivor, now)
}

// addKeys records the identifiers of k that no row holds yet: on the lead itself when it has
// none of that kind, else on an alias row merged into it.
func (st *state) addKeys(w *pgx.Batch, projectID, lead string, k keys, now time.Time) {
	root := st.rows[lead]
	var alias keys
	set := func(name, value string, own *string, aliasValue *string, column string) {
		if value == "" {
			return
		}
		if _, ok := st.byKey[name+value]; ok {
			return
		}
		if *own == "" {
			*own = value
			st.byKey[name+value] = lead
			w.Queue("UPDATE leads SET "+column+" = $2, updated_at = $3 WHERE id = $1", lead, value, now)
			return
		}
		*aliasValue = value
	}
	set("e:", k.email, &root.own.email, &alias.email, "email")
	set("p:", k.phone, &root.own.phone, &alias.phone, "phone")
	set("d:", k.document, &root.own.document, &alias.document, "document")
	if alias == (keys{}) {
		return
	}
	id := ids.New(ids.Lead)
	st.rows[id] = &row{root: lead}
	for _, name := range keyNames(alias) {
		st.byKey[name] = id
	}
	insertLead(w, id, projectID, lead, alias, Upsert{}, now)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func insertLead(w *pgx.Batch, id, projectID, mergedInto string, k keys, u Upsert, now time.Time) {
	p, t := u.Identity, u.UTM
	w.Queue(`INSERT INTO leads (id, project_id, merged_into, email, phone, document, name, first_name, last_name,
		external_id, city, state, zip, country, utm_source, utm_medium, utm_campaign, utm_content, utm_term,
		created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20)`,
		id, projectID, nullable(mergedInto), nullable(k.email), nullable(k.phone), nullable(k.document),
		trim(p.Name), trim(p.FirstName), trim(p.LastName), trim(p.ExternalID), trim(p.City), trim(p.State),
		trim(p.Zip), trim(p.Country), t.Source, t.Medium, t.Campaign, t.Content, t.Term, now)
}

// updateProfile takes the non-empty profile members of u, and its UTM when it has one.
func updateProfile(w *pgx.Batch, id string, u Upsert, now time.Time) {
	p, t := u.Identity, u.UTM
	w.Queue(`UPDATE leads SET
		name = CASE WHEN $2 <> '' THEN $2 ELSE name END,
		first_name = CASE WHEN $3 <> '' THEN $3 ELSE first_name END,
		last_name = CASE WHEN $4 <> '' THEN $4 ELSE last_name END,
		external_id = CASE WHEN $5 <> '' THEN $5 ELSE external_id END,
		city = CASE WHEN $6 <> '' THEN $6 ELSE city END,
		state = CASE WHEN $7 <> '' THEN $7 ELSE state END,
		zip = CASE WHEN $8 <> '' THEN $8 ELSE zip END,
		country = CASE WHEN $9 <> '' THEN $9 ELSE country END,
		utm_source = CASE WHEN $10 THEN $11 ELSE utm_source END,
		utm_medium = CASE WHEN $10 THEN $12 ELSE utm_medium END,
		utm_campaign = CASE WHEN $10 THEN $13 ELSE utm_campaign END,
		utm_content = CASE WHEN $10 THEN $14 ELSE utm_content END,
		utm_term = CASE WHEN $10 THEN $15 ELSE utm_term END,
		updated_at = $16
		WHERE id = $1`,
		id, trim(p.Name), trim(p.FirstName), trim(p.LastName), trim(p.ExternalID), trim(p.City), trim(p.State),
		trim(p.Zip), trim(p.Country), !t.IsZero(), t.Source, t.Medium, t.Campaign, t.Content, t.Term, now)
}

// trim bounds a profile value: trimmed, at most 255 bytes of valid UTF-8.
func trim(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, ""))
	for len(s) > 255 {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
