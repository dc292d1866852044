package api

import (
	"bytes"
	"fmt"
	"testing"

	"mtk/engine"
)

// TestQueryBodiesBounded: a kept body's query is found by the same bytes only; bodies over
// queryBodyMax are not kept, and the count never passes queryBodiesMax.
func TestQueryBodiesBounded(t *testing.T) {
	q := newQueryBodies()
	q.put([]byte(`{"project_id":"prj_a"}`), engine.QueryInput{ProjectID: "prj_a"})
	if in, ok := q.get([]byte(`{"project_id":"prj_a"}`)); !ok || in.ProjectID != "prj_a" {
		t.Fatalf("kept body: %v %v", in, ok)
	}
	if _, ok := q.get([]byte(`{"project_id": "prj_a"}`)); ok {
		t.Fatal("other bytes found the kept query")
	}
	big := append([]byte(`{"project_id":"prj_b","x":"`), bytes.Repeat([]byte("x"), queryBodyMax)...)
	q.put(big, engine.QueryInput{ProjectID: "prj_b"})
	if _, ok := q.get(big); ok {
		t.Fatal("a body over queryBodyMax was kept")
	}
	for i := range 2 * queryBodiesMax {
		q.put([]byte(fmt.Sprintf(`{"project_id":"prj_%d"}`, i)), engine.QueryInput{})
	}
	if n := len(q.m); n != queryBodiesMax {
		t.Fatalf("%d bodies kept, want %d", n, queryBodiesMax)
	}
}
