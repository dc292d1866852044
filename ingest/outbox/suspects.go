package outbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// anys is xs as the values of a clickhouse.GroupSet.
func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// suspects are rows an earlier run attempted: they may already be in ClickHouse.
type suspects struct {
	ids      []uint64
	projects map[string]bool
	from, to time.Time
}

// add adds a row whose ClickHouse rows lie in [from, to].
func (s *suspects) add(id uint64, project string, from, to time.Time) {
	if s.projects == nil {
		s.projects = map[string]bool{}
	}
	s.ids = append(s.ids, id)
	s.projects[project] = true
	if t := from.UTC().Truncate(time.Minute); s.from.IsZero() || t.Before(s.from) {
		s.from = t
	}
	if t := to.UTC(); t.After(s.to) {
		s.to = t
	}
}

// lookupIDs is how many suspects one lookup statement lists. The ids are bound into the
// statement's text, which ClickHouse caps (max_query_size, 256 KiB by default): 5,000 ids of up
// to 20 digits stay far below it, a whole DrainBatch might not.
const lookupIDs = 5000

// lookup adds to present which suspects table holds, by outbox_id, reading only their projects
// and time range. table is facts_raw, business_raw or events.
func (s *suspects) lookup(ctx context.Context, ch driver.Conn, table string, present map[uint64]bool) error {
	projects := slices.Sorted(maps.Keys(s.projects))
	for ids := range slices.Chunk(s.ids, lookupIDs) {
		if err := lookupChunk(ctx, ch, table, projects, s.from, s.to, ids, present); err != nil {
			return err
		}
	}
	return nil
}

// lookupChunk adds to present the ids that table holds.
func lookupChunk(ctx context.Context, ch driver.Conn, table string, projects []string, from, to time.Time, ids []uint64, present map[uint64]bool) error {
	// IN, not has(): ClickHouse prunes by the sorting key (project_id, ts) and tests ids against a
	// set, where has() over an array literal scans (2.7 s against 0.09 s a chunk on 198 k rows).
	rows, err := ch.Query(ctx, `SELECT DISTINCT outbox_id FROM `+table+`
		WHERE project_id IN ? AND ts >= ? AND ts <= ? AND outbox_id IN ?`,
		clickhouse.GroupSet{Value: anys(projects)}, from, to, clickhouse.GroupSet{Value: anys(ids)})
	if err != nil {
		return fmt.Errorf("outbox: look up %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uint64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		present[id] = true
	}
	return rows.Err()
}
