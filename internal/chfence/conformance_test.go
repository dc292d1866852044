package chfence

import (
	"strings"
	"testing"

	"mtk/engine"
	"mtk/internal/chdb"
	"mtk/internal/testenv"
)

// The fence's statements run on 18.16 (the tests of an interrupted insert) and on current
// ClickHouse: on one server they run in chDB (nothing to kill, nothing running); chDB has no
// cluster, so the cluster's are parsed there (EXPLAIN AST).
func TestFenceStatementsOnCurrentClickHouse(t *testing.T) {
	cur, err := chdb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	for _, cluster := range []string{"", testenv.ClusterName} {
		kill, running, args, err := Fence{Cluster: cluster}.statements([]string{NewPrefix("test"), NewPrefix("test")})
		if err != nil {
			t.Fatal(err)
		}
		for _, sql := range []string{kill, running} {
			text, err := engine.Bind(engine.Statement{SQL: sql, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if cluster != "" {
				text = "EXPLAIN AST " + text
			}
			out, err := cur.Query(text, "TabSeparated")
			if err != nil {
				t.Errorf("on current ClickHouse: %v\n%s", err, text)
				continue
			}
			if sql == running && cluster == "" && strings.TrimSpace(out) != "0" {
				t.Errorf("%s: %q, want 0", text, out)
			}
		}
	}
}
