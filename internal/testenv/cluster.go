package testenv

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/internal/db"
	"mtk/internal/ids"
	"mtk/schema"
)

// ClusterName is the test cluster that scripts/cluster.sh starts (make test): two shards of one
// replica each, with a ZooKeeper for ON CLUSTER DDL.
const ClusterName = "mtk_test"

// ClusterShardURLs are the native addresses of the test cluster's shards in shard order, from
// MTK_TEST_CLUSTER_SHARDS (comma-separated) or scripts/cluster.sh's ports.
func ClusterShardURLs() []string {
	if v := os.Getenv("MTK_TEST_CLUSTER_SHARDS"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"clickhouse://127.0.0.1:19101", "clickhouse://127.0.0.1:19102"}
}

// Cluster is a test's own database on the test cluster.
type Cluster struct {
	// CH is the database through the first shard, with inserts into Distributed tables
	// synchronous, as mtk opens it.
	CH
	// Shards are the database on each shard, to read what one shard holds.
	Shards []driver.Conn
}

// ClickHouseClusterDatabase creates an empty database on every shard of the test cluster and
// drops it afterwards.
func ClickHouseClusterDatabase(t testing.TB) Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	name := "test_" + ids.Random(8)
	shards := ClusterShardURLs()
	u := withDatabase(shards[0], name)
	conn, err := db.OpenClickHouseCluster(ctx, u, ClusterName)
	if err != nil {
		t.Fatalf("testenv: the test cluster does not answer; run `make test` or scripts/cluster.sh start: %v", err)
	}
	c := Cluster{CH: CH{Conn: conn, URL: u, Name: name}}
	t.Cleanup(func() {
		for _, s := range c.Shards {
			s.Close()
		}
		cctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := conn.Exec(cctx, "DROP DATABASE IF EXISTS "+name+" ON CLUSTER "+ClusterName); err != nil {
			t.Errorf("testenv: drop clickhouse %s on the cluster: %v", name, err)
		}
		conn.Close()
	})
	for _, s := range shards {
		opts, err := db.ClickHouseOptions(withDatabase(s, name))
		if err != nil {
			t.Fatal(err)
		}
		opts.MaxOpenConns, opts.MaxIdleConns = 4, 2
		sc, err := clickhouse.Open(opts)
		if err != nil {
			t.Fatalf("testenv: shard %s: %v", s, err)
		}
		c.Shards = append(c.Shards, sc)
	}
	return c
}

// ClickHouseCluster creates a database on the test cluster, migrated for it, and drops it
// afterwards.
func ClickHouseCluster(t testing.TB) Cluster {
	t.Helper()
	c := ClickHouseClusterDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := schema.MigrateClickHouseCluster(ctx, c.Conn, ClusterName); err != nil {
		t.Fatalf("testenv: clickhouse cluster migrations: %v", err)
	}
	return c
}
