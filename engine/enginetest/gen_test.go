package enginetest

import (
	"context"
	"testing"
	"time"

	"mtk/internal/testenv"
)

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := Demo(5, time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC), 3)
	a, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(cfg)
	if len(a.Facts) == 0 || len(a.Facts) != len(b.Facts) || a.Facts[len(a.Facts)-1] != b.Facts[len(b.Facts)-1] {
		t.Fatalf("two runs differ: %d and %d facts", len(a.Facts), len(b.Facts))
	}
	if len(a.Projects) != 3 || len(a.Rates) == 0 || len(a.Entities) == 0 {
		t.Fatalf("%d projects, %d rates, %d entities", len(a.Projects), len(a.Rates), len(a.Entities))
	}
}

func TestWriteAndStream(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	ds, err := Generate(Demo(5, time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC), 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(ctx, ch.Conn); err != nil {
		t.Fatal(err)
	}
	if err := ds.StreamAdFacts(ctx, ch.Conn, 1, 250_000); err != nil {
		t.Fatal(err)
	}
	var raw, daily int64
	if err := ch.Conn.QueryRow(ctx, "SELECT toInt64(count()) FROM facts_raw").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(ds.Facts) + 250_000); raw != want {
		t.Fatalf("%d raw rows, want %d", raw, want)
	}
	var rawImpr, dailyImpr int64
	if err := ch.Conn.QueryRow(ctx, "SELECT sum(impressions) FROM facts_raw").Scan(&rawImpr); err != nil {
		t.Fatal(err)
	}
	if err := ch.Conn.QueryRow(ctx, "SELECT sum(impressions), toInt64(count()) FROM facts_daily").Scan(&dailyImpr, &daily); err != nil {
		t.Fatal(err)
	}
	if rawImpr != dailyImpr || daily == 0 {
		t.Fatalf("raw impressions %d, daily %d (%d rows)", rawImpr, dailyImpr, daily)
	}
}
