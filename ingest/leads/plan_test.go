package leads

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/clock"
	"mtk/platform"
	"mtk/platform/utm"
)

// A batch's upserts folded into a few statements leave what applying them one by one leaves:
// the same people (which identifiers name one person).
func TestBatchEqualsOneByOne(t *testing.T) {
	pool, one := setup(t)
	st := platform.New(pool, clock.Real{})
	ctx := context.Background()
	p, err := st.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: workspaceOf(t, pool, one), Name: "batch", Currency: "BRL", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	batch := p.ID
	r := rand.New(rand.NewSource(7))
	var ups []Upsert
	for i := range 80 {
		var id Identity
		for id.keys() == (keys{}) {
			if r.Intn(2) == 0 {
				id.Email = fmt.Sprintf("p%d@x.com", r.Intn(8))
			}
			if r.Intn(2) == 0 {
				id.Phone = fmt.Sprintf("55119%07d", r.Intn(8))
			}
			if r.Intn(4) == 0 {
				id.Document = fmt.Sprintf("%011d", r.Intn(4))
			}
		}
		id.Name = fmt.Sprintf("n%d", i)
		ups = append(ups, Upsert{Identity: id})
	}
	var sequential []Result
	for _, u := range ups {
		sequential = append(sequential, apply(t, pool, one, u)[0])
	}
	batched := apply(t, pool, batch, ups...)
	if a, b := people(t, pool, one), people(t, pool, batch); !slices.Equal(a, b) {
		t.Fatalf("one by one:\n%s\nin one batch:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	for i := range ups {
		if sequential[i].New != batched[i].New {
			t.Fatalf("upsert %d: New %v one by one, %v in a batch", i, sequential[i].New, batched[i].New)
		}
	}
	if n := count(t, pool, "project_id = '"+batch+"' AND merged_into IS NULL"); n != count(t, pool, "project_id = '"+one+"' AND merged_into IS NULL") {
		t.Fatalf("%d roots in the batch's project", n)
	}
}

// Later upserts of one lead in a batch fold into its insert, or its update: non-empty members
// and the latest UTM win.
func TestBatchFoldsProfiles(t *testing.T) {
	pool, project := setup(t)
	a := apply(t, pool, project,
		Upsert{Identity: Identity{Email: "a@x.com", Name: "N1", City: "Recife"}},
		Upsert{Identity: Identity{Email: "a@x.com", Name: "N2", Phone: "1199"}, UTM: utm.Params{Campaign: "C|1"}},
	)
	want := func(name, city, phone, campaign string) {
		t.Helper()
		var n, c, ph, cm string
		if err := pool.QueryRow(context.Background(), "SELECT name, city, coalesce(phone, ''), utm_campaign FROM leads WHERE id = $1",
			a[0].LeadID).Scan(&n, &c, &ph, &cm); err != nil {
			t.Fatal(err)
		}
		if n != name || c != city || ph != phone || cm != campaign {
			t.Fatalf("lead: %q %q %q %q, want %q %q %q %q", n, c, ph, cm, name, city, phone, campaign)
		}
	}
	if !a[0].New || a[1].New || a[0].LeadID != a[1].LeadID {
		t.Fatalf("first batch: %+v", a)
	}
	want("N2", "Recife", "1199", "C|1")
	b := apply(t, pool, project,
		Upsert{Identity: Identity{Phone: "1199", Name: "N3"}, UTM: utm.Params{Campaign: "C|2"}},
		Upsert{Identity: Identity{Email: "a@x.com", City: "Natal"}},
	)
	if b[0].LeadID != a[0].LeadID || b[1].LeadID != a[0].LeadID {
		t.Fatalf("second batch: %+v", b)
	}
	want("N3", "Natal", "1199", "C|2")
}

// people lists a project's persons as the sorted identifiers that find each, one line each.
func people(t *testing.T, pool *pgxpool.Pool, project string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT coalesce(l.merged_into, l.id), coalesce(l.email, ''),
		coalesce(l.phone, ''), coalesce(l.document, '') FROM leads l WHERE l.project_id = $1`, project)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	byRoot := map[string][]string{}
	for rows.Next() {
		var root, e, p, d string
		if err := rows.Scan(&root, &e, &p, &d); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"e:" + e, "p:" + p, "d:" + d} {
			if len(k) > 2 {
				byRoot[root] = append(byRoot[root], k)
			}
		}
	}
	var out []string
	for _, ks := range byRoot {
		slices.Sort(ks)
		out = append(out, strings.Join(ks, " "))
	}
	slices.Sort(out)
	return out
}

func workspaceOf(t *testing.T, pool *pgxpool.Pool, project string) string {
	t.Helper()
	var ws string
	if err := pool.QueryRow(context.Background(), "SELECT workspace_id FROM projects WHERE id = $1", project).Scan(&ws); err != nil {
		t.Fatal(err)
	}
	return ws
}
