// Package pairs backfills the business family's pair rollups and per-dimension rollups by ad
// entity (ClickHouse 0017: business_pair_daily, business_dim_entity_daily) with the business rows
// stored before them.
//
// Their views count only the rows written with pair_rollups = 1, which mtk writes on every row
// since 0017 (facts.InsertBizFacts); the backfill counts only the rows with 0, stored before.
// So no row is counted twice, or lost, whatever writers insert during the backfill. The backfill
// writes, for each project listed in PostgreSQL's pair_backfill (0038) and each month of its rows
// with 0, the views' own statement over those rows (one INSERT ... SELECT, one block, so one part:
// all or nothing), its rows marked backfilled = 1; a month that already has such rows is done.
// Before it sends anything it records its query id prefix on the project's row, and a rerun
// first ends that try's statements (internal/chfence), so an interrupted try's INSERT never lands
// after the rerun looked. The project's row goes once every month of both tables is written;
// from then on the engine reads the two rollups for it (platform.ProjectScope.PairsPending).
package pairs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/internal/chfence"
	"mtk/internal/pglock"
	"mtk/schema"
)

// Tables are the rollups the backfill writes, each fed by the view <table>_mv.
var Tables = []string{"business_pair_daily", "business_dim_entity_daily"}

// Backfill writes the rows stored before the pair rollups into them.
type Backfill struct {
	Pool *pgxpool.Pool
	CH   driver.Conn
	// Cluster is the ClickHouse cluster (schema.ValidClusterName), "" on one server.
	Cluster string
	Log     *slog.Logger
}

// Run backfills every project still listed in pair_backfill and returns how many it finished;
// 0 at once when another run holds the backfill's lock (one runs at a time).
func (b *Backfill) Run(ctx context.Context) (int, error) {
	stmts, err := statements()
	if err != nil {
		return 0, err
	}
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", pglock.PairBackfill).Scan(&locked); err != nil || !locked {
		return 0, err
	}
	// A lock left held (the unlock failed) would stay with the pooled session: close it instead.
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", pglock.PairBackfill); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck // the session's end frees the lock
		}
	}()
	done := 0
	for {
		var project, prior string
		err := conn.QueryRow(ctx, "SELECT project_id, query_id FROM pair_backfill ORDER BY project_id LIMIT 1").Scan(&project, &prior)
		if errors.Is(err, pgx.ErrNoRows) {
			return done, nil
		}
		if err != nil {
			return done, err
		}
		if err := b.project(ctx, conn, stmts, project, prior); err != nil {
			return done, fmt.Errorf("pairs: backfill project %s: %w", project, err)
		}
		done++
	}
}

// project backfills one project's months in both tables, then drops its pair_backfill row.
func (b *Backfill) project(ctx context.Context, conn *pgxpool.Conn, stmts map[string]string, project, prior string) error {
	if err := (chfence.Fence{CH: b.CH, Cluster: b.Cluster}).End(ctx, []string{prior}); err != nil {
		return err
	}
	prefix := chfence.NewPrefix("pairs")
	if _, err := conn.Exec(ctx, "UPDATE pair_backfill SET query_id = $2 WHERE project_id = $1", project, prefix); err != nil {
		return err
	}
	months, err := b.months(ctx, "SELECT DISTINCT toYYYYMM(day) FROM business_raw WHERE project_id = ? AND pair_rollups = 0", project)
	if err != nil {
		return err
	}
	n := 0
	for _, table := range Tables {
		written, err := b.months(ctx, "SELECT DISTINCT toYYYYMM(day) FROM "+table+" WHERE project_id = ? AND backfilled = 1", project)
		if err != nil {
			return err
		}
		for _, m := range slices.Sorted(maps.Keys(months)) {
			if written[m] {
				continue
			}
			n++
			// One block per statement: the squashing of an INSERT ... SELECT gathers every row of
			// the month before writing, so that the month's part is written whole or not at all.
			qctx := clickhouse.Context(ctx, clickhouse.WithQueryID(prefix+"."+strconv.Itoa(n)),
				clickhouse.WithSettings(clickhouse.Settings{"min_insert_block_size_rows": 1 << 40, "min_insert_block_size_bytes": 1 << 40}))
			if err := b.CH.Exec(qctx, stmts[table], project, m); err != nil {
				return fmt.Errorf("%s, month %d: %w", table, m, err)
			}
		}
	}
	if _, err := conn.Exec(ctx, "DELETE FROM pair_backfill WHERE project_id = $1", project); err != nil {
		return err
	}
	if b.Log != nil {
		b.Log.Info("backfill pairs: project done", "project", project, "months", len(months), "statements", n)
	}
	return nil
}

// months are the months (YYYYMM) that query, of one project, lists.
func (b *Backfill) months(ctx context.Context, query, project string) (map[uint32]bool, error) {
	rows, err := b.CH.Query(ctx, query, project)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[uint32]bool{}
	for rows.Next() {
		var m uint32
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		out[m] = true
	}
	return out, rows.Err()
}

var viewRe = regexp.MustCompile(`(?s)CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)_mv TO (\w+) AS\s+(SELECT\s.*?);`)

// statements are the backfill's INSERT of one project's month into each table: the statement
// of the table's view, as its migration writes it (the one place that says how a raw row is
// spread), over the rows with pair_rollups = 0 of the project (?) and month (?), its rows marked
// backfilled.
func statements() (map[string]string, error) {
	migs, err := schema.Load("clickhouse")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range migs {
		for _, v := range viewRe.FindAllStringSubmatch(m.SQL, -1) {
			if v[1] != v[2] || !slices.Contains(Tables, v[2]) {
				continue
			}
			sel := v[3]
			for from, to := range map[string]string{
				"toUInt8(0) AS backfilled": "toUInt8(1) AS backfilled",
				"WHERE pair_rollups = 1":   "WHERE pair_rollups = 0 AND project_id = ? AND toYYYYMM(day) = ?",
			} {
				if strings.Count(sel, from) != 1 {
					return nil, fmt.Errorf("pairs: the view %s_mv has not one %q", v[1], from)
				}
				sel = strings.Replace(sel, from, to, 1)
			}
			out[v[2]] = "INSERT INTO " + v[2] + " (" + strings.Join(facts.BusinessFamily.ColumnNames(v[2]), ", ") + ")\n" + sel
		}
	}
	for _, t := range Tables {
		if out[t] == "" {
			return nil, fmt.Errorf("pairs: no view of %s in the ClickHouse migrations", t)
		}
	}
	return out, nil
}
