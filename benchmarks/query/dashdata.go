package main

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/engine/enginetest"
)

// dashLast is the last local day of the dashboard run's data in every project's zone, and the
// server's today during the run (dashStart).
var dashLast = time.Date(2024, 4, 29, 0, 0, 0, 0, time.UTC)

// dashStart is the instant the run's clock starts at: 15:00 UTC on dashLast is 12:00 in Sao
// Paulo, 11:00 in New York and 20:30 in Kolkata, so today is dashLast in every project's zone
// for the next three and a half hours, far longer than a run.
var dashStart = dashLast.Add(15 * time.Hour)

// dashDays are the days the data covers by default: today, the 90 days of the longest range
// (ending yesterday) and the 90 before them, which its previous-period cards read.
const dashDays = 181

// dashLayout names the generator's shape in the marker, so that a change to it regenerates.
const dashLayout = "dashboard v1 8x4x5 chance=0.01 last=2024-04-29 shapes=3"

// dashGenerator is the generator of the existing benchmark (8 campaigns × 4 ad sets × 5 ads per
// network, a sparse base of ad and business facts) for every project, in its currency and zone
// with accounts in the other currencies.
func dashGenerator(spec dataSpec, t *dashTenants) enginetest.Config {
	cfg := enginetest.Config{Seed: spec.Seed, Campaigns: 8, AdSets: 4, Ads: 5, FactChance: 0.01}
	for _, p := range t.projects {
		ps := enginetest.ProjectSpec{ID: p.project.ID, TimeZone: p.project.Timezone, Currency: p.project.Currency,
			Start: dashLast.AddDate(0, 0, 1-spec.Days), Days: spec.Days, AccountCurrencies: p.shape.accounts,
			Connections: map[string]string{}, Accounts: map[string]string{}}
		for _, c := range p.networks {
			ps.Connections[c.Kind] = c.ID
			ps.Accounts[c.Kind] = *c.SourceID
		}
		cfg.Projects = append(cfg.Projects, ps)
	}
	return cfg
}

// generatedRows counts the rows the generator wrote: the fact outbox's rows carry their outbox
// id and sync's their batch id, so the live writes of earlier runs are not counted.
const generatedRows = "SELECT count() FROM facts_raw WHERE outbox_id = 0 AND batch_id = ''"

// projectIDs names the projects in the marker.
func projectIDs(t *dashTenants) string {
	ids := make([]string, len(t.projects))
	for i, p := range t.projects {
		ids[i] = p.project.ID
	}
	return strings.Join(ids, ",")
}

// reuseDashData reports whether the database's data can be reused: its marker names the same
// layout, seed, rows, days and projects and facts_raw still holds the generated rows.
func reuseDashData(ctx context.Context, conn driver.Conn, dbName string, spec dataSpec, t *dashTenants) (dataState, bool, error) {
	var st dataState
	if err := conn.Exec(ctx, markerDDL); err != nil {
		return st, false, err
	}
	var want, have uint64
	err := conn.QueryRow(ctx, "SELECT toUInt64(max(raw_rows)) FROM bench_marker WHERE layout = ? AND seed = ? AND rows = ? AND days = ? AND project_id = ?",
		dashLayout, spec.Seed, uint64(spec.Rows), uint32(spec.Days), projectIDs(t)).Scan(&want)
	if err != nil {
		return st, false, err
	}
	if err := conn.QueryRow(ctx, generatedRows).Scan(&have); err != nil {
		return st, false, err
	}
	if want == 0 || want != have {
		return st, false, nil
	}
	log.Printf("reusing %d generated raw rows in clickhouse database %s (same seed, rows and layout; -fresh regenerates)", have, dbName)
	st.RawRows, st.Reused = have, true
	return st, true, activeParts(ctx, conn, dbName, &st)
}

// writeDashData empties the ClickHouse database and writes the data again: each project's
// entities, rates and base facts, then rows/projects streamed ad facts per project; then the ad
// objects that attribute events (in PostgreSQL, which the caller made afresh with t) and the
// marker.
func writeDashData(ctx context.Context, conn driver.Conn, pg *pgxpool.Pool, dbName string, spec dataSpec, t *dashTenants) (dataState, error) {
	var st dataState
	start := time.Now()
	ds, err := regenerate(ctx, conn, dbName, dashGenerator(spec, t))
	if err != nil {
		return st, err
	}
	log.Printf("writing %d raw ad-fact rows over %d days and %d projects (plus %d generated base facts)...",
		spec.Rows, spec.Days, len(t.projects), len(ds.Facts))
	n := len(ds.Projects)
	for i := range ds.Projects {
		// StreamAdFacts streams for a dataset's first project: one dataset per project.
		one := &enginetest.Dataset{Projects: ds.Projects[i : i+1], Facts: ds.Facts}
		rows := spec.Rows / n
		if i < spec.Rows%n {
			rows++
		}
		if rows == 0 {
			continue
		}
		if err := one.StreamAdFacts(ctx, conn, spec.Seed+int64(i), rows); err != nil {
			return st, fmt.Errorf("project %s: %w", ds.Projects[i].ID, err)
		}
	}
	st.WriteSecs = time.Since(start).Seconds()
	if err := conn.QueryRow(ctx, generatedRows).Scan(&st.RawRows); err != nil {
		return st, err
	}
	log.Printf("wrote %d raw rows in %.1f s; saving the ad objects, waiting for merges to settle", st.RawRows, st.WriteSecs)
	if err := saveAdObjects(ctx, pg, ds, t); err != nil {
		return st, err
	}
	if err := settleMerges(ctx, conn, dbName); err != nil {
		return st, err
	}
	if err := writeMarker(ctx, conn, dashLayout, spec, projectIDs(t), st.RawRows); err != nil {
		return st, err
	}
	return st, activeParts(ctx, conn, dbName, &st)
}
