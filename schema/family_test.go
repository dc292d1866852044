package schema_test

import (
	"context"
	"strings"
	"testing"

	"mtk/facts"
	"mtk/internal/chdb"
	"mtk/internal/testenv"
)

// Every fact family's tables and views, after the migrations, have the columns its descriptor
// declares (facts/family.go): on the 18.16 server and on current ClickHouse (chDB). A measure
// added to facts.Specs without its migration fails here, naming each table and view that lacks it.
func TestFamiliesMatchTheMigrations(t *testing.T) {
	ch := testenv.ClickHouse(t)
	rows, err := ch.Conn.Query(context.Background(),
		"SELECT table, name, type FROM system.columns WHERE database = currentDatabase()")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	old := map[string]map[string]string{}
	for rows.Next() {
		var table, name, typ string
		if err := rows.Scan(&table, &name, &typ); err != nil {
			t.Fatal(err)
		}
		addColumn(old, table, name, typ)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, p := range facts.Conform(old, facts.Families...) {
		t.Errorf("ClickHouse 18.16: %s", p)
	}

	cur, err := chdb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	if err := cur.Migrate(); err != nil {
		t.Fatal(err)
	}
	out, err := cur.Query("SELECT table, name, type FROM system.columns WHERE database = currentDatabase()", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	current := map[string]map[string]string{}
	for line := range strings.Lines(out) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 {
			t.Fatalf("system.columns on current ClickHouse: line %q", line)
		}
		addColumn(current, f[0], f[1], f[2])
	}
	for _, p := range facts.Conform(current, facts.Families...) {
		t.Errorf("current ClickHouse: %s", p)
	}
}

func addColumn(live map[string]map[string]string, table, name, typ string) {
	if live[table] == nil {
		live[table] = map[string]string{}
	}
	live[table][name] = typ
}
