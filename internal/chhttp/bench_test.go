package chhttp_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/shopspring/decimal"

	"mtk/internal/testenv"
)

// benchSQL is an answer of a dashboard tile's shape (30 rows of a date, a name, money and a
// count) that costs the server next to nothing: what is left is each path's fixed cost.
const benchSQL = `SELECT toDateTime(toStartOfDay(toDateTime(1700000000 + number * 86400), 'America/Sao_Paulo'), 'America/Sao_Paulo') AS bucket,
	concat('campaign ', toString(number)) AS name, toDecimal64(number, 4) * toDecimal64(1.25, 2) AS spend,
	toInt64(number * 7) AS clicks FROM system.numbers LIMIT 30`

// BenchmarkFixedCost sends benchSQL with the engine's settings through clickhouse-go's native
// protocol (mtk's pool options: LZ4) and through the HTTP reader, the two in a fresh random
// order each iteration so that the machine's other work weighs on both alike, scanning every
// row into the engine's types. It reports each path's p50 in µs and their ratio.
func BenchmarkFixedCost(b *testing.B) {
	ch := testenv.ClickHouse(b)
	r := ch.HTTPReader(b)
	settings := clickhouse.Settings{"max_execution_time": 10, "max_rows_to_read": 2_000_000_000,
		"max_memory_usage": 4 << 30, "max_query_size": 1 << 22, "max_threads": 1}
	ctx := context.Background()
	type scanner interface {
		Next() bool
		Scan(...any) error
	}
	scan := func(rows scanner) {
		var (
			bucket time.Time
			name   string
			spend  decimal.Decimal
			clicks int64
		)
		n := 0
		for rows.Next() {
			if err := rows.Scan(&bucket, &name, &spend, &clicks); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 30 {
			b.Fatalf("%d rows", n)
		}
	}
	paths := []func(){
		func() {
			rows, err := ch.Conn.Query(clickhouse.Context(ctx, clickhouse.WithSettings(settings)), benchSQL)
			if err != nil {
				b.Fatal(err)
			}
			scan(rows)
			rows.Close()
		},
		func() {
			rows, err := r.Query(ctx, benchSQL, settings)
			if err != nil {
				b.Fatal(err)
			}
			scan(rows)
		},
	}
	lat := make([][]time.Duration, len(paths))
	order := rand.New(rand.NewPCG(41, 41))
	b.ResetTimer()
	for range b.N {
		for _, i := range order.Perm(len(paths)) {
			start := time.Now()
			paths[i]()
			lat[i] = append(lat[i], time.Since(start))
		}
	}
	p50 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds())
	}
	native, reader := p50(lat[0]), p50(lat[1])
	b.ReportMetric(native, "native-p50-µs")
	b.ReportMetric(reader, "http-p50-µs")
	b.ReportMetric(reader/native, "http/native")
}
