package engine_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"mtk/engine"
	"mtk/internal/chdb"
	"mtk/internal/testenv"
)

// hostile are strings a filter value may hold: quotes, backslashes, control bytes, NUL,
// invalid UTF-8, LIKE wildcards, a comment and a second statement.
var hostile = []string{
	"", `'`, `\`, `\'`, `''`, `\\'`, "a'b\\c", "\x00", "a\x00b'\x00", "\t\n\r\b\f\v\x01\x1b\x7f",
	"\xff\xfe\xc3", "\xc3\x28", "%_\\%", "é🙂", "--", "/*", "'; DROP TABLE facts_raw; --",
	"{name:String}", "?", strings.Repeat("'\\", 300),
}

// TestBindQuotesHostileValues: every kind of value the compiler binds, written into a statement
// by Bind (the HTTP reader's and the conformance test's binding), reads back on ClickHouse 18.16
// over HTTP and on current ClickHouse (chDB) exactly as clickhouse-go binds it on the native
// protocol.
func TestBindQuotesHostileValues(t *testing.T) {
	ch := testenv.ClickHouse(t)
	r := ch.HTTPReader(t)
	cur, err := chdb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	ctx := context.Background()
	var args []any
	for _, s := range hostile {
		args = append(args, s)
	}
	sao, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, 0, -1, int64(-9223372036854775808), int64(9223372036854775807), 0.1, -2.5e-300,
		time.Date(2024, 3, 10, 2, 30, 0, 0, time.UTC), time.Date(2024, 11, 3, 1, 30, 0, 0, sao))
	// Each value as ClickHouse reads it: its hex, through toString (a time: its instant).
	for _, a := range args {
		sql := "SELECT hex(toString(?))"
		if _, ok := a.(time.Time); ok {
			sql = "SELECT hex(toString(toUnixTimestamp(?)))"
		}
		var want string
		if err := ch.Conn.QueryRow(ctx, sql, a).Scan(&want); err != nil {
			t.Fatalf("native %#v: %v", a, err)
		}
		if s, ok := a.(string); ok && want != strings.ToUpper(hex.EncodeToString([]byte(s))) {
			t.Errorf("native %q: read back as %s", s, want)
		}
		bound, err := engine.Bind(engine.Statement{SQL: sql, Args: []any{a}})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := r.Query(ctx, bound, nil)
		if err != nil {
			t.Fatalf("HTTP %#v: %v", a, err)
		}
		var got string
		if !rows.Next() || rows.Scan(&got) != nil || got != want {
			t.Errorf("HTTP %#v: read back as %s, native as %s", a, got, want)
		}
		out, err := cur.Query(bound, "TabSeparated")
		if err != nil {
			t.Fatalf("chDB %#v: %v", a, err)
		}
		if strings.TrimSpace(out) != want {
			t.Errorf("chDB %#v: read back as %s, native as %s", a, strings.TrimSpace(out), want)
		}
	}
	// An IN list (a filter's values): each hostile string is found in it.
	set := clickhouse.GroupSet{Value: args[:len(hostile)]}
	in := "SELECT count() FROM (SELECT arrayJoin(?) AS s) WHERE s IN ?"
	bound, err := engine.Bind(engine.Statement{SQL: strings.Replace(in, "?", "["+strings.TrimSuffix(strings.Repeat("?, ", len(hostile)), ", ")+"]", 1),
		Args: append(append([]any{}, args[:len(hostile)]...), set)})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Query(ctx, bound, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	if !rows.Next() || rows.Scan(&n) != nil || n != uint64(len(hostile)) {
		t.Errorf("HTTP: %d of %d hostile strings found in their IN list", n, len(hostile))
	}
	if out, err := cur.Query(bound, "TabSeparated"); err != nil || strings.TrimSpace(out) != fmt.Sprint(len(hostile)) {
		t.Errorf("chDB: %q (%v) of %d hostile strings found in their IN list", out, err, len(hostile))
	}
}
