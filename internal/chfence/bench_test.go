package chfence

import (
	"context"
	"testing"

	"mtk/internal/testenv"
)

// BenchmarkFence is what the fence adds to recovering a batch whose interrupted statements have
// already ended (the common case): the kill and one look at system.processes, on one server and
// on the two-shard cluster (ON CLUSTER, through ZooKeeper).
func BenchmarkFence(b *testing.B) {
	b.Run("server", func(b *testing.B) { benchFence(b, Fence{CH: testenv.ClickHouse(b).Conn}) })
	b.Run("cluster", func(b *testing.B) {
		benchFence(b, Fence{CH: testenv.ClickHouseClusterDatabase(b).Conn, Cluster: testenv.ClusterName})
	})
}

func benchFence(b *testing.B, f Fence) {
	ctx := context.Background()
	prefixes := []string{NewPrefix("bench")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.End(ctx, prefixes); err != nil {
			b.Fatal(err)
		}
	}
}
