package engine_test

import (
	"context"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"mtk/engine"
	"mtk/facts"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// TestBatchLandsOnceOnCluster: on the two-shard test cluster, a batch whose facts span
// projects of both shards is completed as after a failure: MissingBatchFacts, reading through
// the Distributed tables, names exactly the rows that no shard holds yet, and once they are
// written the rollups of both shards hold every fact once.
func TestBatchLandsOnceOnCluster(t *testing.T) {
	ctx := context.Background()
	cl := testenv.ClickHouseCluster(t)
	day := time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
	var fs []facts.Fact
	for i, p := range []string{"prj_a", "prj_b", "prj_c", "prj_d", "prj_e", "prj_f"} {
		for h := range 3 {
			fs = append(fs, facts.Fact{ProjectID: p, Time: day.Add(time.Duration(h) * time.Hour), AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_" + p, AdID: "ad1"}, Currency: "USD", Values: facts.Values{facts.Spend: int64(1_000_000 * (i + 1)), facts.Clicks: int64(h + 1)}})
		}
	}
	for _, l := range []facts.Landing{facts.LandingRaw, facts.LandingHourly, facts.LandingDaily} {
		if err := facts.InsertBatch(ctx, cl.Conn, l, time.UTC, "b1", fs[:len(fs)/2]); err != nil {
			t.Fatal(err)
		}
		missing, err := facts.MissingBatchFacts(ctx, cl.Conn, l, time.UTC, "b1", fs)
		if err != nil || !reflect.DeepEqual(missing, fs[len(fs)/2:]) {
			t.Fatalf("%s: missing %d facts, want %d: %v", l, len(missing), len(fs)-len(fs)/2, err)
		}
		if err := facts.InsertBatch(ctx, cl.Conn, l, time.UTC, "b1", missing); err != nil {
			t.Fatal(err)
		}
		if missing, err := facts.MissingBatchFacts(ctx, cl.Conn, l, time.UTC, "b1", fs); err != nil || len(missing) != 0 {
			t.Fatalf("%s: still missing %v, %v", l, missing, err)
		}
	}
	var total int64
	for i, sh := range cl.Shards {
		var spend, clicks int64
		if err := sh.QueryRow(ctx, "SELECT toInt64(sum(spend)), toInt64(sum(clicks)) FROM facts_daily_local").Scan(&spend, &clicks); err != nil {
			t.Fatal(err)
		}
		if spend == 0 {
			t.Fatalf("shard %d holds no facts", i+1)
		}
		total += spend
	}
	// Raw and hourly facts reach facts_daily, daily ones too: three times each fact.
	if want := int64(3 * 3 * (1 + 2 + 3 + 4 + 5 + 6) * 1_000_000); total != want {
		t.Fatalf("daily rollups hold %d spend, want %d", total, want)
	}
}

// TestBusinessQueriesOnCluster: the business family through the Distributed tables of the
// two-shard test cluster (its projects on both shards) answers the business differential's
// queries as one server does.
func TestBusinessQueriesOnCluster(t *testing.T) {
	ctx := context.Background()
	cl := testenv.ClickHouseCluster(t)
	one := testenv.ClickHouse(t)
	ds := seededBusiness(t, one.Conn)
	if err := ds.Write(ctx, cl.Conn); err != nil {
		t.Fatal(err)
	}
	for i, sh := range cl.Shards {
		var n uint64
		if err := sh.QueryRow(ctx, "SELECT count() FROM business_daily_local").Scan(&n); err != nil || n == 0 {
			t.Fatalf("shard %d holds %d business rows: %v", i+1, n, err)
		}
	}
	single := engine.New(one.Conn, engine.Options{Clock: clock.NewFake(testNow)})
	sharded := engine.New(cl.Conn, engine.Options{Clock: clock.NewFake(testNow), Cluster: true})
	r := rand.New(rand.NewSource(diffSeed))
	for i := 0; i < 40; i++ {
		q := randomBizQuery(r, ds)
		want, err := single.Query(ctx, bizScope(q.p), q.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sharded.Query(ctx, bizScope(q.p), q.in)
		if err != nil {
			t.Fatalf("%s on the cluster: %v", asJSON(q.in), err)
		}
		if asJSON(got) != asJSON(want) {
			t.Fatalf("%s on the cluster:\n got %s\nwant %s", asJSON(q.in), truncate(asJSON(got), 2000), truncate(asJSON(want), 2000))
		}
	}
}
