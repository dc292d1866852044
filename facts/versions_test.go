package facts_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/internal/pglisten"
	"mtk/internal/testenv"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// listening starts v listening until the test ends and waits until it is.
func listening(t *testing.T, pool *pgxpool.Pool, v *facts.Versions) *facts.Versions {
	t.Helper()
	d := pglisten.New(pool.Config().ConnConfig, nil)
	if err := v.Subscribe(d); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	heard(t, v)
	return v
}

func heard(t *testing.T, v *facts.Versions) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := v.Heard(ctx); err != nil {
		t.Fatalf("heard: %v", err)
	}
}

// versionOf reads a version that must be known.
func versionOf(t *testing.T, v *facts.Versions, project, first, after string) facts.Version {
	t.Helper()
	got, known, err := v.Of(context.Background(), project, day(first), day(after))
	if err != nil || !known {
		t.Fatalf("version of %s %s..%s: known %v, %v", project, first, after, known, err)
	}
	return got
}

func moved(t *testing.T, pool *pgxpool.Pool, changes ...facts.Change) {
	t.Helper()
	if err := facts.Moved(context.Background(), pool, changes); err != nil {
		t.Fatal(err)
	}
}

// TestVersionsMoveWithWhatAnswersRead pins what moves which version: facts move their project's
// days only (today's writes leave last month's version), entities and settings move every day
// of their project, rates move their day in every project, and a second process sharing
// PostgreSQL hears every move.
func TestVersionsMoveWithWhatAnswersRead(t *testing.T) {
	pg := testenv.Postgres(t)
	a := listening(t, pg.Pool, facts.NewVersions(pg.Pool, false))
	b := listening(t, pg.Pool, facts.NewVersions(pg.Pool, false)) // another mtk process
	type ranges struct{ month, today, other facts.Version }
	read := func(v *facts.Versions) ranges {
		heard(t, v)
		return ranges{month: versionOf(t, v, "prj_a", "2026-10-01", "2026-11-01"),
			today: versionOf(t, v, "prj_a", "2026-11-24", "2026-11-25"),
			other: versionOf(t, v, "prj_b", "2026-10-01", "2026-11-25")}
	}
	before := read(a)
	if read(b) != before {
		t.Fatal("two processes read different versions of the same rows")
	}
	steps := []struct {
		name                string
		change              facts.Change
		month, today, other bool // which ranges move
	}{
		{"facts of today", facts.FactsOn("prj_a", day("2026-11-24")), false, true, false},
		{"facts of today again", facts.FactsOn("prj_a", day("2026-11-24")), false, true, false},
		{"facts of last month", facts.FactsOn("prj_a", day("2026-10-15")), true, false, false},
		{"another project's facts", facts.FactsOn("prj_b", day("2026-10-15")), false, false, true},
		{"entity names", facts.EntitiesOf("prj_a"), true, true, false},
		{"settings", facts.SettingsOf("prj_a"), true, true, false},
		{"rates of today", facts.RatesOn(day("2026-11-24")), false, true, true},
		{"rates of a day no range reads", facts.RatesOn(day("2025-01-01")), false, false, false},
	}
	for _, s := range steps {
		moved(t, pg.Pool, s.change)
		for i, v := range []*facts.Versions{a, b} {
			after := read(v)
			if (after.month != before.month) != s.month || (after.today != before.today) != s.today ||
				(after.other != before.other) != s.other {
				t.Fatalf("%s, process %d: versions %+v -> %+v; want moved month %v, today %v, other project %v",
					s.name, i, before, after, s.month, s.today, s.other)
			}
		}
		before = read(a)
	}
}

// TestVersionsSeeMovesCommittedOutOfOrder: a transaction that took an earlier version value but
// commits after a later one still moves the version (a maximum of the rows would not).
func TestVersionsSeeMovesCommittedOutOfOrder(t *testing.T) {
	ctx := context.Background()
	pg := testenv.Postgres(t)
	v := listening(t, pg.Pool, facts.NewVersions(pg.Pool, false))
	first := versionOf(t, v, "prj_a", "2026-11-01", "2026-11-03")
	early, err := pg.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback(ctx) //nolint:errcheck
	if err := facts.Moved(ctx, early, []facts.Change{facts.FactsOn("prj_a", day("2026-11-01"))}); err != nil {
		t.Fatal(err)
	}
	moved(t, pg.Pool, facts.FactsOn("prj_a", day("2026-11-02"))) // a later value, committed first
	heard(t, v)
	second := versionOf(t, v, "prj_a", "2026-11-01", "2026-11-03")
	if err := early.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	heard(t, v)
	third := versionOf(t, v, "prj_a", "2026-11-01", "2026-11-03")
	if first == second || second == third {
		t.Fatalf("versions %d, %d, %d: each commit must move the range's version", first, second, third)
	}
}

// TestVersionsGrainAndUnknown: before its dispatcher listens versions are unknown, and the
// project grain moves a project's every range with any of its writes.
func TestVersionsGrainAndUnknown(t *testing.T) {
	pg := testenv.Postgres(t)
	idle := facts.NewVersions(pg.Pool, false)
	if _, known, err := idle.Of(context.Background(), "prj_a", day("2026-11-01"), day("2026-11-02")); known || err != nil {
		t.Fatalf("a Versions that is not listening knows a version (%v)", err)
	}
	v := listening(t, pg.Pool, facts.NewVersions(pg.Pool, true))
	before := versionOf(t, v, "prj_a", "2026-10-01", "2026-11-01")
	moved(t, pg.Pool, facts.FactsOn("prj_a", day("2026-11-24")))
	heard(t, v)
	if versionOf(t, v, "prj_a", "2026-10-01", "2026-11-01") == before {
		t.Fatal("with the project grain, today's facts leave last month's version")
	}
}

// TestMovedLocksRowsInOrder: writers moving overlapping days in opposite orders never deadlock.
func TestMovedLocksRowsInOrder(t *testing.T) {
	ctx := context.Background()
	pg := testenv.Postgres(t)
	days := []facts.Change{facts.FactsOn("prj_a", day("2026-11-01")), facts.FactsOn("prj_a", day("2026-11-02")),
		facts.FactsOn("prj_a", day("2026-11-03"))}
	reversed := []facts.Change{days[2], days[1], days[0]}
	errs := make(chan error, 40)
	for i := range 40 {
		cs := days
		if i%2 == 1 {
			cs = reversed
		}
		go func() {
			errs <- pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error { return facts.Moved(ctx, tx, cs) })
		}()
	}
	for range 40 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestVersionsListenAgainAfterTheConnectionDrops: when PostgreSQL drops the listening
// connection, versions are unknown (answers are read, not cached) until the dispatcher is back, and a
// move made meanwhile is seen after it.
func TestVersionsListenAgainAfterTheConnectionDrops(t *testing.T) {
	ctx := context.Background()
	pg := testenv.Postgres(t)
	v := listening(t, pg.Pool, facts.NewVersions(pg.Pool, false))
	before := versionOf(t, v, "prj_a", "2026-11-01", "2026-11-30")
	if _, err := pg.Pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN mtk_data_versions'`); err != nil {
		t.Fatal(err)
	}
	moved(t, pg.Pool, facts.FactsOn("prj_a", day("2026-11-24"))) // perhaps while nobody listens
	deadline := time.Now().Add(10 * time.Second)
	sawDown := false
	for time.Now().Before(deadline) {
		if !v.Live() {
			sawDown = true
		} else if sawDown {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !sawDown {
		t.Fatal("versions stayed known while the listening connection was gone")
	}
	heard(t, v)
	if versionOf(t, v, "prj_a", "2026-11-01", "2026-11-30") == before {
		t.Fatal("a move made while the connection was down is not seen after it came back")
	}
}
