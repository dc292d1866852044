package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine/enginetest"
	"mtk/platform"
	"mtk/schema"
)

// dataStart is the first local day of the generated data: fixed, so that a later run can reuse it.
var dataStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// dataSpec is what the generated data depends on; the marker row records it.
type dataSpec struct {
	Seed int64
	Rows int
	Days int
}

// generator is the shape of the generated entities: 8 campaigns × 4 ad sets × 5 ads per network
// (480 ads, under the 500 that StreamAdFacts spreads its rows over), plus a sparse base of ad
// and business facts (orders in BRL, USD and EUR) so that revenue and conversion have work.
func generator(spec dataSpec, t tenant) enginetest.Config {
	p := enginetest.ProjectSpec{
		ID: t.project.ID, TimeZone: t.project.Timezone, Currency: t.project.Currency, Start: dataStart, Days: spec.Days,
		AccountCurrencies: map[string]string{platform.KindBeta: "USD", platform.KindGamma: "EUR"},
		Connections:       map[string]string{}, Accounts: map[string]string{},
	}
	for _, c := range t.connections {
		p.Connections[c.Kind] = c.ID
		p.Accounts[c.Kind] = *c.SourceID
	}
	return enginetest.Config{Seed: spec.Seed, Campaigns: 8, AdSets: 4, Ads: 5, FactChance: 0.01,
		Projects: []enginetest.ProjectSpec{p}}
}

// layout names the generator's shape in the marker, so that a change to it regenerates.
const layout = "v1 8x4x5 chance=0.01 start=2024-01-01"

// dataState is what the benchmark read or wrote.
type dataState struct {
	RawRows     uint64            `json:"raw_rows"`
	Reused      bool              `json:"reused"`
	WriteSecs   float64           `json:"write_seconds,omitempty"`
	ActiveParts map[string]uint64 `json:"active_parts"`
}

const markerDDL = `CREATE TABLE IF NOT EXISTS bench_marker (layout String, seed Int64, rows UInt64, days UInt32,
	project_id String, raw_rows UInt64, written DateTime) ENGINE = MergeTree ORDER BY written`

// ensureData reuses the database's data when its marker row names the same layout, seed, row
// count, days and project, and facts_raw still holds what was written; otherwise (or with fresh)
// it empties the database and generates the data again.
func ensureData(ctx context.Context, conn driver.Conn, dbName string, spec dataSpec, t tenant, fresh bool) (dataState, error) {
	var st dataState
	if err := conn.Exec(ctx, markerDDL); err != nil {
		return st, err
	}
	if !fresh {
		var want, have uint64
		err := conn.QueryRow(ctx, "SELECT toUInt64(max(raw_rows)) FROM bench_marker WHERE layout = ? AND seed = ? AND rows = ? AND days = ? AND project_id = ?",
			layout, spec.Seed, uint64(spec.Rows), uint32(spec.Days), t.project.ID).Scan(&want)
		if err != nil {
			return st, err
		}
		if err := conn.QueryRow(ctx, "SELECT count() FROM facts_raw WHERE project_id = ?", t.project.ID).Scan(&have); err != nil {
			return st, err
		}
		if want > 0 && want == have {
			log.Printf("reusing %d raw rows in clickhouse database %s (same seed, rows and layout; -fresh regenerates)", have, dbName)
			st.RawRows, st.Reused = have, true
			return st, activeParts(ctx, conn, dbName, &st)
		}
	}
	if err := recreateClickHouse(ctx, conn, dbName); err != nil {
		return st, err
	}
	if _, err := schema.MigrateClickHouse(ctx, conn); err != nil {
		return st, err
	}
	if err := conn.Exec(ctx, markerDDL); err != nil {
		return st, err
	}
	start := time.Now()
	ds, err := enginetest.Generate(generator(spec, t))
	if err != nil {
		return st, err
	}
	if err := ds.Write(ctx, conn); err != nil {
		return st, err
	}
	log.Printf("writing %d raw ad-fact rows over %d days (plus %d generated base facts)...", spec.Rows, spec.Days, len(ds.Facts))
	if err := ds.StreamAdFacts(ctx, conn, spec.Seed, spec.Rows); err != nil {
		return st, err
	}
	st.WriteSecs = time.Since(start).Seconds()
	if err := conn.QueryRow(ctx, "SELECT count() FROM facts_raw WHERE project_id = ?", t.project.ID).Scan(&st.RawRows); err != nil {
		return st, err
	}
	log.Printf("wrote %d raw rows in %.1f s; waiting for merges to settle", st.RawRows, st.WriteSecs)
	if err := settleMerges(ctx, conn, dbName); err != nil {
		return st, err
	}
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO bench_marker (layout, seed, rows, days, project_id, raw_rows, written)")
	if err != nil {
		return st, err
	}
	defer batch.Close()
	if err := batch.Append(layout, spec.Seed, uint64(spec.Rows), uint32(spec.Days), t.project.ID, st.RawRows, time.Now()); err != nil {
		return st, err
	}
	if err := batch.Send(); err != nil {
		return st, fmt.Errorf("write the marker: %w", err)
	}
	return st, activeParts(ctx, conn, dbName, &st)
}

// settleMerges waits (at most two minutes) until ClickHouse runs no merge in the database, so
// that the rollups are measured in the state they keep between writes rather than just after
// a bulk load.
func settleMerges(ctx context.Context, conn driver.Conn, dbName string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var n uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM system.merges WHERE database = ?", dbName).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		time.Sleep(time.Second)
	}
	log.Printf("merges still running after two minutes; measuring anyway")
	return nil
}

// activeParts records how many data parts each fact table has: fewer parts, fewer files read.
func activeParts(ctx context.Context, conn driver.Conn, dbName string, st *dataState) error {
	rows, err := conn.Query(ctx, "SELECT table, count() FROM system.parts WHERE database = ? AND active GROUP BY table", dbName)
	if err != nil {
		return err
	}
	defer rows.Close()
	st.ActiveParts = map[string]uint64{}
	for rows.Next() {
		var table string
		var n uint64
		if err := rows.Scan(&table, &n); err != nil {
			return err
		}
		st.ActiveParts[table] = n
	}
	return rows.Err()
}
