package leads

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"mtk/internal/ids"
	"mtk/internal/pglock"
	"mtk/platform/utm"
)

// row is what a Plan knows of a lead row: its root and, for roots, their own identifiers and
// (for roots the load read) their stored profile.
type row struct {
	root    string
	created time.Time // the root's
	own     keys      // the root's own identifiers
	stored  *profile  // the root's profile as stored; nil for rows the batch makes
}

// state is one project's leads as a Plan sees them while it works through a batch.
type state struct {
	rows  map[string]*row   // by lead id
	byKey map[string]string // "e:<email>", "p:<phone>", "d:<document>" → lead id
}

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

// Plan is one project's upserts of a batch on their way through the caller's transaction, in
// two round trips however many leads it holds: QueueLoad queues the project's lead lock and the
// read of the rows that hold the upserts' identifiers (see the package comment); ReadLoad reads
// their answers; Resolve resolves the upserts in order and queues the writes, as a few
// set-based statements, for the caller to send with the rest of its transaction.
type Plan struct {
	project, zone string
	ups           []Upsert
	keys          []keys
	st            *state
	locked        bool // the load takes the project's lead lock
}

// NewPlan plans ups for the leads of project, whose time zone is zone.
func NewPlan(project, zone string, ups []Upsert) *Plan {
	p := &Plan{project: project, zone: zone, ups: ups, keys: make([]keys, len(ups))}
	for i, u := range ups {
		p.keys[i] = u.Identity.keys()
	}
	return p
}

func (p *Plan) identified() bool {
	for _, k := range p.keys {
		if k != (keys{}) {
			return true
		}
	}
	return false
}

// QueueLoad queues the lock and the read on b (nothing when no upsert has an identifier).
func (p *Plan) QueueLoad(b *pgx.Batch) { p.queueLoad(b, true) }

// queueRead queues the read alone, without the lock: for a writer that writes only when what it
// read says it must (OrderLead), and then loads again under the lock.
func (p *Plan) queueRead(b *pgx.Batch) { p.queueLoad(b, false) }

func (p *Plan) queueLoad(b *pgx.Batch, lock bool) {
	if !p.identified() {
		return
	}
	p.locked = lock
	var emails, phones, documents []string
	for _, k := range p.keys {
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
	if lock {
		b.Queue("SELECT pg_advisory_xact_lock("+pglock.KeyedID+")", pglock.Leads(p.project))
	}
	b.Queue(loadSQL, p.project, emails, phones, documents)
}

// loadSQL reads the rows that hold any of the identifiers, each with its root: the root's own
// identifiers and profile.
const loadSQL = `SELECT l.id, r.id, r.created_at, coalesce(l.email, ''), coalesce(l.phone, ''),
		coalesce(l.document, ''), coalesce(r.email, ''), coalesce(r.phone, ''), coalesce(r.document, ''),
		r.name, r.first_name, r.last_name, r.external_id, r.city, r.state, r.zip, r.country,
		r.utm_source, r.utm_medium, r.utm_campaign, r.utm_content, r.utm_term
	FROM leads l JOIN leads r ON r.id = coalesce(l.merged_into, l.id)
	WHERE l.project_id = $1 AND (l.email = ANY($2) OR l.phone = ANY($3) OR l.document = ANY($4))`

// ReadLoad reads the answers of what QueueLoad queued, from br.
func (p *Plan) ReadLoad(br pgx.BatchResults) error {
	p.st = &state{rows: map[string]*row{}, byKey: map[string]string{}}
	if !p.identified() {
		return nil
	}
	if p.locked {
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("leads: lock: %w", err)
		}
	}
	rows, err := br.Query()
	if err != nil {
		return fmt.Errorf("leads: load: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, root string
		var created time.Time
		var k, rk keys
		var pr profile
		if err := rows.Scan(&id, &root, &created, &k.email, &k.phone, &k.document, &rk.email, &rk.phone, &rk.document,
			&pr.name, &pr.firstName, &pr.lastName, &pr.externalID, &pr.city, &pr.state, &pr.zip, &pr.country,
			&pr.utm.Source, &pr.utm.Medium, &pr.utm.Campaign, &pr.utm.Content, &pr.utm.Term); err != nil {
			return fmt.Errorf("leads: load: %w", err)
		}
		pr.hasUTM = !pr.utm.IsZero()
		p.st.rows[id] = &row{root: root}
		if _, ok := p.st.rows[root]; !ok || root == id {
			p.st.rows[root] = &row{root: root, created: created, own: rk, stored: &pr}
		}
		for _, name := range keyNames(k) {
			p.st.byKey[name] = id
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("leads: load: %w", err)
	}
	return nil
}

// Resolve resolves the upserts, in order, after ReadLoad, queues their writes on b and returns
// one Result per Upsert.
func (p *Plan) Resolve(b *pgx.Batch, now time.Time) []Result {
	results := make([]Result, len(p.ups))
	var w writes
	for i, u := range p.ups {
		if p.keys[i] == (keys{}) {
			continue
		}
		results[i] = p.st.apply(&w, u, p.keys[i], now)
	}
	for i := range results {
		if results[i].LeadID != "" {
			results[i].LeadID = p.st.rows[results[i].LeadID].root
		}
	}
	w.dropUnchanged(p.st)
	w.queue(b, p.project, p.zone, now)
	return results
}

// latestUTM is the stored UTM of a root the load read (zero for one the batch made).
func (p *Plan) latestUTM(id string) utm.Params {
	if r := p.st.rows[id]; r != nil && r.stored != nil {
		return r.stored.utm
	}
	return utm.Params{}
}

// apply resolves one identity and queues its writes on w; it returns the lead id it resolved to
// (a root at the time).
func (st *state) apply(w *writes, u Upsert, k keys, now time.Time) Result {
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
		w.insert(id, "", k, profileOf(u))
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
			st.merge(w, r, survivor)
		}
	}
	st.addKeys(w, survivor, k)
	w.touch(survivor, profileOf(u))
	return Result{LeadID: survivor}
}

// merge points loser, and every row merged into it, at survivor.
func (st *state) merge(w *writes, loser, survivor string) {
	for _, r := range st.rows {
		if r.root == loser {
			r.root = survivor
		}
	}
	w.merge(loser, survivor)
}

// addKeys records the identifiers of k that no row holds yet: on the lead itself when it has
// none of that kind, else on an alias row merged into it.
func (st *state) addKeys(w *writes, lead string, k keys) {
	root := st.rows[lead]
	var alias keys
	set := func(name, value string, own *string, aliasValue *string, take func(*keys)) {
		if value == "" {
			return
		}
		if _, ok := st.byKey[name+value]; ok {
			return
		}
		if *own == "" {
			*own = value
			st.byKey[name+value] = lead
			w.setKey(lead, take)
			return
		}
		*aliasValue = value
	}
	set("e:", k.email, &root.own.email, &alias.email, func(c *keys) { c.email = k.email })
	set("p:", k.phone, &root.own.phone, &alias.phone, func(c *keys) { c.phone = k.phone })
	set("d:", k.document, &root.own.document, &alias.document, func(c *keys) { c.document = k.document })
	if alias == (keys{}) {
		return
	}
	id := ids.New(ids.Lead)
	st.rows[id] = &row{root: lead}
	for _, name := range keyNames(alias) {
		st.byKey[name] = id
	}
	w.insert(id, lead, alias, profile{})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
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
