package leads

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/clock"
	"mtk/internal/testenv"
	"mtk/platform"
	"mtk/platform/utm"
)

func setup(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	pg := testenv.Postgres(t)
	st := platform.New(pg.Pool, clock.Real{})
	ctx := context.Background()
	ws, err := st.Workspaces.CreateWorkspace(ctx, "w", platform.TierDefault)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "p", Currency: "BRL", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return pg.Pool, p.ID
}

// apply runs a Plan of ups in a transaction of its own, as the events flush does.
func apply(t *testing.T, pool *pgxpool.Pool, project string, ups ...Upsert) []Result {
	t.Helper()
	var out []Result
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		zone, err := platform.ProjectTimezone(ctx, tx, project)
		if err != nil {
			return err
		}
		p := NewPlan(project, zone, ups)
		b := &pgx.Batch{}
		b.Queue(GenericPlans)
		p.QueueLoad(b)
		br := tx.SendBatch(ctx, b)
		_, err = br.Exec()
		if err == nil {
			err = p.ReadLoad(br)
		}
		if err != nil {
			br.Close()
			return err
		}
		if err := br.Close(); err != nil {
			return err
		}
		w := &pgx.Batch{}
		out = p.Resolve(w, time.Now())
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// orderLead runs an OrderLead in a transaction of its own, as an order webhook does.
func orderLead(t *testing.T, pool *pgxpool.Pool, project, leadRef string, id Identity) Lead {
	t.Helper()
	var l Lead
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		o := NewOrderLead(project, "UTC", leadRef, id)
		b := &pgx.Batch{}
		o.QueueLoad(b)
		br := tx.SendBatch(ctx, b)
		err := o.ReadLoad(br)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		w := &pgx.Batch{}
		var ok bool
		if l, ok = o.Resolve(w, time.Now()); !ok { // a lead to write: again under the lock
			b := &pgx.Batch{}
			o.QueueLoad(b)
			br := tx.SendBatch(ctx, b)
			err := o.ReadLoad(br)
			if cerr := br.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if l, ok = o.Resolve(w, time.Now()); !ok {
				return errors.New("resolved unlocked twice")
			}
		}
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func count(t *testing.T, pool *pgxpool.Pool, where string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM leads WHERE "+where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestConcurrentEventsMakeOneLead(t *testing.T) {
	pool, project := setup(t)
	var wg sync.WaitGroup
	got := make([]string, 40)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every other event names the person by phone only, in another notation.
			id := Identity{Email: " Ana@Example.com ", Phone: "+55 (11) 98888-7777"}
			if i%2 == 1 {
				id = Identity{Phone: "5511988887777"}
			}
			got[i] = apply(t, pool, project, Upsert{Identity: id})[0].LeadID
		}()
	}
	wg.Wait()
	if n := count(t, pool, "merged_into IS NULL"); n != 1 {
		t.Fatalf("%d leads, want 1", n)
	}
	for _, id := range got {
		if id != got[0] {
			t.Fatalf("answers name different leads: %v", got)
		}
	}
}

func TestRules(t *testing.T) {
	pool, project := setup(t)
	a := apply(t, pool, project, Upsert{Identity: Identity{Email: "a@x.com", City: "Recife"}, UTM: utm.Params{Campaign: "C|1"}})[0]
	if !a.New || a.LeadID == "" {
		t.Fatalf("first event: %+v", a)
	}
	if r := apply(t, pool, project, Upsert{Identity: Identity{Name: "No identifier"}})[0]; r.LeadID != "" {
		t.Fatalf("an identity without identifier made lead %q", r.LeadID)
	}
	b := apply(t, pool, project, Upsert{Identity: Identity{Phone: "11 2222-3333"}})[0]
	if !b.New || b.LeadID == a.LeadID {
		t.Fatalf("another person: %+v", b)
	}
	// One event names both: the older lead survives, the other is merged into it.
	m := apply(t, pool, project, Upsert{Identity: Identity{Email: "A@x.com", Phone: "1122223333"}})[0]
	if m.New || m.LeadID != a.LeadID {
		t.Fatalf("merge answered %+v, want %s", m, a.LeadID)
	}
	if n := count(t, pool, "id = '"+b.LeadID+"' AND merged_into = '"+a.LeadID+"'"); n != 1 {
		t.Fatal("the younger lead is not merged into the older")
	}
	// A second e-mail of the person is kept on an alias, and finds them later.
	apply(t, pool, project, Upsert{Identity: Identity{Phone: "1122223333", Email: "other@x.com"}})
	if l := orderLead(t, pool, project, "", Identity{Email: "OTHER@x.com"}); l.New || l.ID != a.LeadID || l.UTM.Campaign != "C|1" {
		t.Fatalf("an order by the second e-mail: %+v", l)
	}
	if l := orderLead(t, pool, project, b.LeadID, Identity{Email: "someone@else.com"}); l.New || l.ID != a.LeadID {
		t.Fatalf("an order by a merged lead's id: %+v", l)
	}
	// An order naming an unknown person creates their lead, which their later events find; one
	// naming a lead id of no lead falls back on its identity; one naming nobody has no lead.
	o := orderLead(t, pool, project, "lead_unknown", Identity{Email: "new@x.com", Name: "Nova"})
	if !o.New || o.ID == "" || count(t, pool, "id = '"+o.ID+"' AND email = 'new@x.com' AND name = 'Nova'") != 1 {
		t.Fatalf("an order of a new person: %+v", o)
	}
	if r := apply(t, pool, project, Upsert{Identity: Identity{Email: " NEW@x.com"}})[0]; r.New || r.LeadID != o.ID {
		t.Fatalf("the person's event after the order: %+v, want lead %s", r, o.ID)
	}
	if l := orderLead(t, pool, project, "", Identity{Name: "Only a name"}); l != (Lead{}) {
		t.Fatalf("an order without identifier: %+v", l)
	}
	// Within one batch, later identities see earlier ones.
	rs := apply(t, pool, project, Upsert{Identity: Identity{Document: "123.456.789-00"}}, Upsert{Identity: Identity{Document: "12345678900", Email: "d@x.com"}})
	if !rs[0].New || rs[1].New || rs[0].LeadID != rs[1].LeadID {
		t.Fatalf("batch: %+v", rs)
	}
}

// An event that repeats what its lead holds leaves the row as it is (the same row version); one
// that changes a profile member or brings a new identifier rewrites it.
func TestUnchangedLeadIsNotRewritten(t *testing.T) {
	pool, project := setup(t)
	id := Identity{Email: "a@x.com", Name: "Ana", City: "Recife"}
	u := utm.Params{Source: "alpha", Campaign: "C|1"}
	lead := apply(t, pool, project, Upsert{Identity: id, UTM: u})[0].LeadID
	version := func() (xmin string, updated time.Time) {
		t.Helper()
		if err := pool.QueryRow(context.Background(), "SELECT xmin::text, updated_at FROM leads WHERE id = $1", lead).Scan(&xmin, &updated); err != nil {
			t.Fatal(err)
		}
		return xmin, updated
	}
	x0, u0 := version()
	// The same identity in another notation, members it already has, no UTM, the same UTM: nothing new.
	apply(t, pool, project, Upsert{Identity: Identity{Email: " A@X.com", City: "Recife"}}, Upsert{Identity: id, UTM: u},
		Upsert{Identity: Identity{Email: "a@x.com"}})
	if x, up := version(); x != x0 || !up.Equal(u0) {
		t.Fatalf("an unchanged lead was rewritten: xmin %s → %s, updated_at %s → %s", x0, x, u0, up)
	}
	for _, change := range []Upsert{
		{Identity: Identity{Email: "a@x.com", City: "Olinda"}},
		{Identity: Identity{Email: "a@x.com"}, UTM: utm.Params{Source: "alpha", Campaign: "C|2"}},
		{Identity: Identity{Email: "a@x.com", Phone: "5511988887777"}},
	} {
		x, _ := version()
		if got := apply(t, pool, project, change)[0].LeadID; got != lead {
			t.Fatalf("%+v answered lead %s, want %s", change, got, lead)
		}
		if after, _ := version(); after == x {
			t.Fatalf("%+v changed the lead but did not rewrite it", change)
		}
	}
	if l := orderLead(t, pool, project, "", Identity{Phone: "+55 11 98888-7777"}); l.New || l.ID != lead || l.UTM.Campaign != "C|2" {
		t.Fatalf("after the changes: %+v", l)
	}
	if n := count(t, pool, "id = '"+lead+"' AND city = 'Olinda' AND name = 'Ana'"); n != 1 {
		t.Fatal("the changed profile was not stored member by member")
	}
}

type fixedGeo struct{}

func (fixedGeo) Locate(context.Context, string) (Location, bool) {
	return Location{City: "Geo City", State: "GS", Zip: "000", Country: "br"}, true
}

func TestLocateLeadValuesWin(t *testing.T) {
	got := Locate(context.Background(), fixedGeo{}, Identity{City: "Recife"}, "1.2.3.4")
	if got.City != "Recife" || got.State != "GS" || got.Country != "br" {
		t.Fatalf("%+v", got)
	}
	if got := Locate(context.Background(), nil, Identity{}, "1.2.3.4"); got != (Identity{}) {
		t.Fatalf("no provider: %+v", got)
	}
}
