package schema_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"mtk/facts"
	"mtk/internal/testenv"
	"mtk/schema"
)

// tablesOn lists a shard's tables of the test's database with their engines.
func tablesOn(t *testing.T, c testenv.Cluster, shard int) map[string]string {
	t.Helper()
	rows, err := c.Shards[shard].Query(context.Background(), "SELECT name, engine FROM system.tables WHERE database = ?", c.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, engine string
		if err := rows.Scan(&name, &engine); err != nil {
			t.Fatal(err)
		}
		out[name] = engine
	}
	return out
}

func TestClusterMigrationsApplyOnce(t *testing.T) {
	start := time.Now()
	c := testenv.ClickHouseCluster(t)
	t.Logf("migrated the two-shard cluster in %v", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()
	first := tablesOn(t, c, 0)
	for _, name := range []string{"facts_raw", "facts_daily", "entities", "events", "fx_rates", "schema_migrations"} {
		if first[name] != "Distributed" || first[name+"_local"] == "" || first[name+"_local"] == "Distributed" {
			t.Fatalf("%s: %q over %q", name, first[name], first[name+"_local"])
		}
	}
	if first["facts_hourly_mv"] != "MaterializedView" {
		t.Fatalf("tables %v", first)
	}
	if second := tablesOn(t, c, 1); fmt.Sprint(second) != fmt.Sprint(first) {
		t.Fatalf("shard 2 holds %v, shard 1 %v", second, first)
	}
	if done, err := schema.MigrateClickHouseCluster(ctx, c.Conn, testenv.ClusterName); err != nil || len(done) != 0 {
		t.Fatalf("second run applied %v, %v", done, err)
	}
	var recorded uint64
	if err := c.Conn.QueryRow(ctx, "SELECT count() FROM schema_migrations").Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	if migs, _ := schema.Load("clickhouse"); recorded != uint64(len(migs)) {
		t.Fatalf("recorded %d migrations of %d", recorded, len(migs))
	}

	// A database of the other layout is refused before any statement runs.
	_, err := schema.MigrateClickHouse(ctx, c.Conn)
	if err == nil || !strings.Contains(err.Error(), "MTK_CLICKHOUSE_CLUSTER") {
		t.Fatalf("single-server migration of a cluster database: %v", err)
	}
	single := testenv.ClickHouse(t)
	_, err = schema.MigrateClickHouseFor(ctx, single.Conn, schema.Cluster{Name: testenv.ClusterName, Database: single.Name})
	if err == nil || !strings.Contains(err.Error(), "migrated for one server") {
		t.Fatalf("cluster migration of a single-server database: %v", err)
	}
	if _, err := schema.MigrateClickHouseCluster(ctx, c.Conn, "no_such_cluster"); err == nil || !strings.Contains(err.Error(), "system.clusters") {
		t.Fatalf("unknown cluster: %v", err)
	}
}

func TestRenderForCluster(t *testing.T) {
	c := schema.Cluster{Name: "main", Database: "mtk"}
	cases := []struct {
		stmt       string
		replicated bool
		want       []string
	}{
		{"CREATE TABLE IF NOT EXISTS t (\n  project_id String,\n  n Int64\n) ENGINE = SummingMergeTree\nORDER BY project_id", false, []string{
			"CREATE TABLE IF NOT EXISTS `mtk`.t_local ON CLUSTER `main` (\n  project_id String,\n  n Int64\n) ENGINE = SummingMergeTree\nORDER BY project_id",
			"CREATE TABLE IF NOT EXISTS `mtk`.t ON CLUSTER `main` AS `mtk`.t_local ENGINE = Distributed('main', 'mtk', 't_local', cityHash64(project_id))",
		}},
		{"CREATE TABLE IF NOT EXISTS fx_rates (day Date, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY day", true, []string{
			"CREATE TABLE IF NOT EXISTS `mtk`.fx_rates_local ON CLUSTER `main` (day Date, version UInt64) ENGINE = " +
				"ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/mtk/fx_rates_local', '{replica}', version) ORDER BY day",
			"CREATE TABLE IF NOT EXISTS `mtk`.fx_rates ON CLUSTER `main` AS `mtk`.fx_rates_local ENGINE = Distributed('main', 'mtk', 'fx_rates_local', cityHash64(base, quote))",
		}},
		{"CREATE MATERIALIZED VIEW IF NOT EXISTS v TO t AS\nSELECT project_id, sum(n) AS n\nFROM raw\nGROUP BY project_id", false, []string{
			"CREATE MATERIALIZED VIEW IF NOT EXISTS `mtk`.v ON CLUSTER `main` TO `mtk`.t_local AS\nSELECT project_id, sum(n) AS n\nFROM `mtk`.raw_local\nGROUP BY project_id",
		}},
		{"ALTER TABLE t ADD COLUMN x UInt64 DEFAULT 0", false, []string{
			"ALTER TABLE `mtk`.t_local ON CLUSTER `main` ADD COLUMN x UInt64 DEFAULT 0",
			"DROP TABLE IF EXISTS `mtk`.t ON CLUSTER `main`",
			"CREATE TABLE IF NOT EXISTS `mtk`.t ON CLUSTER `main` AS `mtk`.t_local ENGINE = Distributed('main', 'mtk', 't_local', cityHash64(project_id))",
		}},
	}
	for _, tc := range cases {
		c.Replicated = tc.replicated
		got, err := c.Render(tc.stmt)
		if err != nil || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("Render(%q) =\n%q, %v\nwant\n%q", tc.stmt, got, err, tc.want)
		}
	}
	for _, bad := range []string{
		"CREATE TABLE IF NOT EXISTS lookup (id String) ENGINE = MergeTree ORDER BY id", // no project_id, no key
		"CREATE TABLE t (project_id String) ENGINE = MergeTree ORDER BY project_id",    // not IF NOT EXISTS
		"RENAME TABLE a TO b",
	} {
		if got, err := c.Render(bad); err == nil {
			t.Errorf("Render(%q) = %q, want an error", bad, got)
		}
	}
	migs, err := schema.Load("clickhouse")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migs {
		for _, stmt := range schema.Statements(m.SQL) {
			if _, err := c.Render(stmt); err != nil {
				t.Errorf("%s: %v", m.Name, err)
			}
		}
	}
}

// TestReplicatedClusterDDL applies the Replicated* form, which clusters with replicas get, to
// the test cluster's shards declared as replicating internally (mtk_test_replicated): every
// statement runs on 18.16, writes reach the rollups, and a second run applies nothing.
func TestReplicatedClusterDDL(t *testing.T) {
	c := testenv.ClickHouseClusterDatabase(t)
	ctx := context.Background()
	cluster := schema.Cluster{Name: testenv.ClusterName + "_replicated", Database: c.Name, Replicated: true}
	for range 2 {
		if _, err := schema.MigrateClickHouseFor(ctx, c.Conn, cluster); err != nil {
			t.Fatal(err)
		}
	}
	for shard := range c.Shards {
		tables := tablesOn(t, c, shard)
		if tables["facts_daily_local"] != "ReplicatedSummingMergeTree" || tables["entities_local"] != "ReplicatedReplacingMergeTree" ||
			tables["facts_daily"] != "Distributed" {
			t.Fatalf("shard %d tables %v", shard+1, tables)
		}
	}
	day := time.Date(2024, 3, 8, 0, 0, 0, 0, time.UTC)
	for i, p := range []string{"prj_a", "prj_b", "prj_c", "prj_d"} {
		if err := facts.InsertFacts(ctx, c.Conn, time.UTC, []facts.Fact{{ProjectID: p, Time: day.Add(time.Hour),
			AdEntity: facts.AdEntity{Source: "alpha_ads", AdID: "1"}, Currency: "USD", Values: facts.Values{facts.Clicks: int64(i + 1)}}}); err != nil {
			t.Fatal(err)
		}
	}
	var clicks int64
	if err := c.Conn.QueryRow(ctx, "SELECT toInt64(sum(clicks)) FROM facts_daily").Scan(&clicks); err != nil || clicks != 10 {
		t.Fatalf("clicks %d, %v", clicks, err)
	}
}
