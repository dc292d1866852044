package chhttp_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/shopspring/decimal"

	"mtk/internal/chdb"
	"mtk/internal/chhttp"
	"mtk/internal/ids"
	"mtk/internal/testenv"
)

// decodeSQL is an answer with what differs between formats: the repeated hour of a DST change,
// Decimals of each width with trailing zeros and signs, NULLs, empty and hostile strings, arrays;
// decodeDests are destinations for one of its rows.
var decodeSQL = `SELECT toDateTime(1667108400 + number * 3600, 'America/Sao_Paulo') AS sp,
		toDateTime(1667280600 + number * 3600, 'America/New_York') AS ny,
		toDate('2024-02-28') + number AS d,
		concat('a\'b\\c\0\t\n', toString(number), unhex('FF00C3')) AS s,
		toDecimal32(-1.5, 2) AS d32,
		toDecimal64(12.3400, 4) * toDecimal64(toInt64(number) - 1, 0) AS d64,
		toDecimal128(-0.0001, 4) * toDecimal128(number, 0) AS d128,
		toUInt8(number) AS u8, toUInt64(18446744073709551615) AS u64, toInt64(-9223372036854775807 - 1) AS i64,
		toFloat64(number) / 3 AS f, if(number = 1, NULL, toDecimal64(1.10, 4)) AS nd,
		arrayMap(x -> toString(x), range(toUInt64(number))) AS strs,
		[toDate('2024-03-31'), toDate('1970-01-02')] AS days
		FROM system.numbers LIMIT 3`

func decodeDests() []any {
	return []any{new(time.Time), new(time.Time), new(time.Time), new(string), new(decimal.Decimal),
		new(decimal.Decimal), new(decimal.Decimal), new(uint8), new(uint64), new(int64), new(float64),
		new(*decimal.Decimal), new([]string), new([]time.Time)}
}

// TestDecodesAsNative reads one answer over HTTP and over the native protocol into the same
// destinations: the values must be equal, time zones included, but for a DateTime whose type
// names a zone (the same instant; the engine labels buckets in the project's zone).
func TestDecodesAsNative(t *testing.T) {
	ch := testenv.ClickHouse(t)
	r := ch.HTTPReader(t)
	ctx := context.Background()
	native, err := ch.Conn.Query(ctx, decodeSQL)
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	got, err := r.Query(ctx, decodeSQL, clickhouse.Settings{"max_threads": 1})
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "HTTP", got, "native", native)
	if err := native.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestDecodesCurrentClickHouse: the Native format current ClickHouse writes (chDB, 26.x, the
// bytes its HTTP interface sends without a client revision) decodes into the values 18.16's
// does over HTTP, so that the reader is proven on both versions. DateTimes are compared as
// instants: current ClickHouse names their zone in the type, 18.16 over HTTP does not.
func TestDecodesCurrentClickHouse(t *testing.T) {
	cur, err := chdb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	out, err := cur.Query(decodeSQL, "Native")
	if err != nil {
		t.Fatal(err)
	}
	// Dates come in the zone of the server the reader talks to: 18.16's, here too.
	ch := testenv.ClickHouse(t)
	var zoneName string
	if err := ch.Conn.QueryRow(context.Background(), "SELECT timezone()").Scan(&zoneName); err != nil {
		t.Fatal(err)
	}
	zone, err := time.LoadLocation(zoneName)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chhttp.Decode([]byte(out), zone)
	if err != nil {
		t.Fatalf("current ClickHouse's Native: %v", err)
	}
	old, err := ch.HTTPReader(t).Query(context.Background(), decodeSQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "current", got, "18.16", old)
}

// scanner is a statement's answer as both paths give it.
type scanner interface {
	Next() bool
	Scan(dests ...any) error
}

// sameRows reads decodeSQL's answer from got and from want (named for the messages) into the same
// destinations: the values must be equal, time zones included, but for the two DateTimes whose
// types name a zone, compared as instants (18.16's HTTP interface names none).
func sameRows(t *testing.T, gotName string, got *chhttp.Rows, wantName string, want scanner) {
	t.Helper()
	n := 0
	for want.Next() {
		if !got.Next() {
			t.Fatalf("%s: %d rows, %s more", gotName, n, wantName)
		}
		w, h := decodeDests(), decodeDests()
		if err := want.Scan(w...); err != nil {
			t.Fatal(err)
		}
		if err := got.Scan(h...); err != nil {
			t.Fatalf("row %d: %v", n, err)
		}
		for i := range w {
			if i < 2 {
				if wt, ht := *w[i].(*time.Time), *h[i].(*time.Time); !wt.Equal(ht) {
					t.Errorf("row %d, column %s: %s %s, %s %s", n, got.Columns()[i], gotName, ht, wantName, wt)
				}
				continue
			}
			if ws, hs := show(w[i]), show(h[i]); ws != hs {
				t.Errorf("row %d, column %s: %s %s, %s %s", n, got.Columns()[i], gotName, hs, wantName, ws)
			}
		}
		n++
	}
	if got.Next() || n != 3 {
		t.Fatalf("%s has more rows than %s's %d", gotName, wantName, n)
	}
}

// show writes a scanned value with what equality must cover: times with their zone,
// decimals with their exponent.
func show(p any) string {
	v := reflect.ValueOf(p).Elem().Interface()
	switch x := v.(type) {
	case time.Time:
		return x.Format(time.RFC3339) + " " + x.Location().String()
	case decimal.Decimal:
		return fmt.Sprintf("%s e%d", x.Coefficient(), x.Exponent())
	case *decimal.Decimal:
		if x == nil {
			return "NULL"
		}
		return fmt.Sprintf("%s e%d", x.Coefficient(), x.Exponent())
	case []time.Time:
		s := ""
		for _, d := range x {
			s += d.Format(time.RFC3339) + " " + d.Location().String() + ","
		}
		return s
	}
	return fmt.Sprintf("%#v", v)
}

// TestExceptionsKeepTheirCode: the server's exception comes back as clickhouse-go's, with its
// code, so that the engine maps it as it maps the native protocol's.
func TestExceptionsKeepTheirCode(t *testing.T) {
	ch := testenv.ClickHouse(t)
	_, err := ch.HTTPReader(t).Query(context.Background(), "SELECT count() FROM (SELECT number FROM system.numbers LIMIT 100000)", clickhouse.Settings{"max_rows_to_read": 10})
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 158 {
		t.Fatalf("over max_rows_to_read: %v, want exception 158", err)
	}
}

// TestCancelStopsTheStatement: a cancelled context ends the request and the statement on the
// server (18.16 goes on with a statement whose HTTP client left; the reader kills it).
func TestCancelStopsTheStatement(t *testing.T) {
	ch := testenv.ClickHouse(t)
	r := ch.HTTPReader(t)
	marker := ids.Random(12)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Query(ctx, "SELECT count() FROM system.numbers WHERE toString(number) = '"+marker+"'", nil)
		done <- err
	}()
	running := func() bool {
		return ch.Text(t, "SELECT count() FROM system.processes WHERE query LIKE '%"+marker+"%' AND query NOT LIKE '%system.processes%' FORMAT TabSeparated") != "0\n"
	}
	waitFor(t, "the statement to start", running)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
	waitFor(t, "the statement to end", func() bool { return !running() })
}

// waitFor polls cond until it holds, for at most 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAnswerStaysInMemory: an answer within the reader's buffer opens no file on the server
// (with wait_end_of_query alone, ClickHouse writes every answer to a temporary file), counted by
// the statement's FileOpen in system.query_log.
func TestAnswerStaysInMemory(t *testing.T) {
	ch := testenv.ClickHouse(t)
	marker := ids.Random(12)
	rows, err := ch.HTTPReader(t).Query(context.Background(), "SELECT '"+marker+"' AS m", clickhouse.Settings{"log_queries": 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	// The server logs the statement once its answer is sent: flush until its row is there.
	var got string
	waitFor(t, "the statement's query_log row", func() bool {
		ch.Text(t, "SYSTEM FLUSH LOGS")
		got = ch.Text(t, "SELECT arraySum(arrayFilter((v, n) -> n = 'FileOpen', ProfileEvents.Values, ProfileEvents.Names)) FROM system.query_log WHERE type = 2 AND event_date >= today() - 1 AND query LIKE '%"+marker+"%' AND query NOT LIKE '%query_log%' FORMAT TabSeparated")
		return got != ""
	})
	if got != "0\n" {
		t.Fatalf("files the server opened for a one-row answer: %q, want 0", got)
	}
}

// TestLargeAnswerStillBuffered: an answer beyond the reader's buffer goes on to the server's
// temporary file: it comes whole, and an exception after its first megabytes is still a status.
func TestLargeAnswerStillBuffered(t *testing.T) {
	ch := testenv.ClickHouse(t)
	r := ch.HTTPReader(t)
	const n = 1_000_000 // 8 MB of UInt64, twice the buffer
	rows, err := r.Query(context.Background(), fmt.Sprintf("SELECT number FROM system.numbers LIMIT %d", n), clickhouse.Settings{"max_block_size": 8192})
	if err != nil {
		t.Fatal(err)
	}
	var sum, v uint64
	count := 0
	for rows.Next() {
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		sum += v
		count++
	}
	if count != n || sum != n*(n-1)/2 {
		t.Fatalf("rows %d, sum %d; want %d, %d", count, sum, n, n*(n-1)/2)
	}
	_, err = r.Query(context.Background(), fmt.Sprintf("SELECT number, throwIf(number = %d) FROM system.numbers LIMIT %d", n-1, n), clickhouse.Settings{"max_block_size": 8192})
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 395 {
		t.Fatalf("an exception after %d rows: %v, want exception 395", n-1, err)
	}
}
