package api

import (
	"sync"

	"mtk/engine"
)

// Bounds of queryBodies: bodies larger than queryBodyMax are decoded every time (a dashboard's
// bodies are a few hundred bytes), and at most queryBodiesMax are kept (with the decoded
// queries, a few megabytes at most).
const (
	queryBodyMax   = 4 << 10
	queryBodiesMax = 4096
)

// queryBodies keeps the checked queries of the bodies last sent to the query routes, keyed by
// the body's bytes: decoding and validating a body (engine.QueryInput.Check) depend on its bytes
// alone, so a body sent again (a dashboard's tile, an answer cache hit above all) is neither
// decoded nor validated again. Only bodies that passed are kept: a bad one gets its 400 from
// the decoder every time. Safe for concurrent use.
type queryBodies struct {
	mu sync.RWMutex
	m  map[string]engine.QueryInput
}

func newQueryBodies() *queryBodies {
	return &queryBodies{m: make(map[string]engine.QueryInput)}
}

// get returns the checked query of body, if kept. The query's slices and maps are shared:
// callers must not change them (the engine takes a query as read-only).
func (q *queryBodies) get(body []byte) (engine.QueryInput, bool) {
	q.mu.RLock()
	in, ok := q.m[string(body)] // no copy of body: the compiler reads the map in place
	q.mu.RUnlock()
	return in, ok
}

// put keeps in, checked, as the query of body; when full, an arbitrary kept body makes room.
func (q *queryBodies) put(body []byte, in engine.QueryInput) {
	if len(body) > queryBodyMax {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.m) >= queryBodiesMax {
		for k := range q.m { // Go's map order is random: this drops any one
			delete(q.m, k)
			break
		}
	}
	q.m[string(body)] = in
}
