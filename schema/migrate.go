// Package schema holds mtk's numbered SQL migrations for PostgreSQL and ClickHouse, embedded in
// the binary, and applies each one once, recording it in a schema_migrations table.
package schema

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/pglock"
)

//go:embed postgres/*.sql clickhouse/*.sql
var files embed.FS

// Migration is one numbered SQL file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load returns the migrations of one store ("postgres" or "clickhouse") in version order.
func Load(store string) ([]Migration, error) {
	entries, err := fs.ReadDir(files, store)
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("schema/%s/%s: want NNNN_name.sql", store, name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("schema/%s: %s and %s share version %d", store, prev, name, v)
		}
		seen[v] = name
		body, err := fs.ReadFile(files, path.Join(store, name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Statements splits a migration into statements at semicolons that end a line's code (what
// stands before a "--" comment). Lines that start with "--" are left out. Migrations do not put
// "--" inside string literals.
func Statements(sql string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") {
			continue
		}
		code, _, _ := strings.Cut(line, "--")
		if !strings.HasSuffix(strings.TrimSpace(code), ";") {
			cur.WriteString(line)
			cur.WriteString("\n")
			continue
		}
		cur.WriteString(code)
		if s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cur.String()), ";")); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// migrationLockID is the PostgreSQL advisory lock that serialises concurrent migrators.
const migrationLockID = pglock.Migrations

// MigratePostgres applies the PostgreSQL migrations not yet recorded, each in its own
// transaction, and returns the names it applied.
func MigratePostgres(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	return migratePostgres(ctx, pool, math.MaxInt)
}

// migratePostgres is MigratePostgres applying no version above upTo (the upgrade tests make the
// database an older release left).
func migratePostgres(ctx context.Context, pool *pgxpool.Pool, upTo int) ([]string, error) {
	migs, err := Load("postgres")
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
		return nil, err
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", migrationLockID) //nolint:errcheck
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY,
		name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, err
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, err
	}
	var done []string
	for _, m := range migs {
		if m.Version > upTo {
			break
		}
		if slices.Contains(versions, int32(m.Version)) {
			continue
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			return done, err
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			tx.Rollback(ctx) //nolint:errcheck
			return done, fmt.Errorf("postgres migration %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
			tx.Rollback(ctx) //nolint:errcheck
			return done, err
		}
		if err := tx.Commit(ctx); err != nil {
			return done, err
		}
		done = append(done, m.Name)
	}
	return done, nil
}

// migrationsTable records the applied ClickHouse migrations.
const migrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version UInt32, name String, applied_at DateTime DEFAULT now()
) ENGINE = MergeTree ORDER BY version`

// MigrateClickHouse applies the ClickHouse migrations not yet recorded, statement by statement
// (ClickHouse has no multi-statement exec and no transactional DDL, so every statement is
// written to be safe to run again: IF NOT EXISTS), and returns the names it applied.
func MigrateClickHouse(ctx context.Context, conn driver.Conn) ([]string, error) {
	return migrateClickHouse(ctx, conn, nil, math.MaxInt)
}

// MigrateClickHouseCluster applies the ClickHouse migrations not yet recorded to the
// connection's database on every server of the named cluster, rendered by Cluster.Render (ON
// CLUSTER, which needs the servers' ZooKeeper), and returns the names it applied. The
// bookkeeping table is itself distributed, so any server of the cluster reads it whole.
func MigrateClickHouseCluster(ctx context.Context, conn driver.Conn, name string) ([]string, error) {
	c, err := DescribeCluster(ctx, conn, name)
	if err != nil {
		return nil, err
	}
	return MigrateClickHouseFor(ctx, conn, c)
}

// MigrateClickHouseFor is MigrateClickHouseCluster for a cluster already described.
func MigrateClickHouseFor(ctx context.Context, conn driver.Conn, c Cluster) ([]string, error) {
	return migrateClickHouse(ctx, conn, &c, math.MaxInt)
}

// DescribeCluster reads the named cluster from the server's system.clusters: its local tables
// are replicated when any shard has more than one replica.
func DescribeCluster(ctx context.Context, conn driver.Conn, name string) (Cluster, error) {
	c := Cluster{Name: name}
	if !ValidClusterName(name) {
		return c, fmt.Errorf("clickhouse cluster %q: use letters, digits, _, . and -", name)
	}
	var hosts uint64
	var maxReplica uint32
	if err := conn.QueryRow(ctx, "SELECT count(), max(replica_num), currentDatabase() FROM system.clusters WHERE cluster = ?",
		name).Scan(&hosts, &maxReplica, &c.Database); err != nil {
		return c, fmt.Errorf("clickhouse cluster %s: %w", name, err)
	}
	if hosts == 0 {
		return c, fmt.Errorf("clickhouse cluster %q is not in the server's system.clusters (remote_servers of its configuration)", name)
	}
	c.Replicated = maxReplica > 1
	return c, nil
}

// migrateClickHouse applies the migrations not yet recorded up to version upTo.
func migrateClickHouse(ctx context.Context, conn driver.Conn, cluster *Cluster, upTo int) ([]string, error) {
	migs, err := Load("clickhouse")
	if err != nil {
		return nil, err
	}
	if err := checkLayout(ctx, conn, cluster != nil); err != nil {
		return nil, err
	}
	exec := func(stmt string) error { return conn.Exec(ctx, stmt) }
	if cluster != nil {
		// An insert through a Distributed table returns once every shard stored its rows.
		ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"insert_distributed_sync": 1}))
		exec = func(stmt string) error {
			rendered, err := cluster.Render(stmt)
			if err != nil {
				return err
			}
			for _, r := range rendered {
				if err := conn.Exec(ctx, r); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := exec(migrationsTable); err != nil {
		return nil, err
	}
	applied := map[uint32]bool{}
	rows, err := conn.Query(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, err
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var done []string
	for _, m := range migs {
		if m.Version > upTo {
			break
		}
		if applied[uint32(m.Version)] {
			continue
		}
		for i, stmt := range Statements(m.SQL) {
			if err := exec(stmt); err != nil {
				return done, fmt.Errorf("clickhouse migration %s, statement %d: %w", m.Name, i+1, err)
			}
		}
		if err := recordClickHouse(ctx, conn, m); err != nil {
			return done, err
		}
		done = append(done, m.Name)
	}
	return done, nil
}

// checkLayout refuses a database laid out for the other mode: a database migrated for one
// server has a plain schema_migrations table, one migrated for a cluster a Distributed one.
func checkLayout(ctx context.Context, conn driver.Conn, clustered bool) error {
	var engine, database string
	err := conn.QueryRow(ctx, "SELECT engine, database FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations'").
		Scan(&engine, &database)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case clustered && engine != "Distributed":
		return fmt.Errorf("clickhouse database %s was migrated for one server, not a cluster: migrate a new database with "+
			"--cluster and copy the data (docs/operations.md, Scaling out: ClickHouse cluster)", database)
	case !clustered && engine == "Distributed":
		return fmt.Errorf("clickhouse database %s was migrated for a cluster: set MTK_CLICKHOUSE_CLUSTER (or mtk migrate --cluster)", database)
	}
	return nil
}

func recordClickHouse(ctx context.Context, conn driver.Conn, m Migration) error {
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO schema_migrations (version, name)")
	if err != nil {
		return err
	}
	defer batch.Close()
	if err := batch.Append(uint32(m.Version), m.Name); err != nil {
		return err
	}
	return batch.Send()
}
