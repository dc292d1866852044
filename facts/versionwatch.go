package facts

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/pglisten"
)

// Versions tells the data version of what an answer reads. It keeps each project's rows of
// data_versions in memory, read once, and forgets a project's rows when PostgreSQL notifies that
// they moved (LISTEN on a connection of its own), so that a version costs no round trip while
// nothing changes, and every mtk process sharing PostgreSQL sees every other's writes as soon as
// their notification arrives: milliseconds after the writer's commit. While it is not listening
// (before its dispatcher listens, or after the connection drops and until it is back) versions are
// unknown, and callers must not rely on a version then.
type Versions struct {
	pool      *pgxpool.Pool
	byProject bool

	mu sync.Mutex
	// live: listening; snapshots read while it holds are kept.
	live bool
	// epoch moves whenever live changes: a snapshot read in another epoch is not kept.
	epoch uint64
	snaps map[string]*snapshot // project id ("" for rates) → its rows as last read
	// heard counts, per project, the notifications heard: a snapshot read while one arrived is
	// not kept, since the read may predate the move.
	heard   map[string]uint64
	waiting map[string]chan struct{} // barrier payloads awaited by Heard
	barrier atomic.Uint64
}

// maxSnapshots bounds the projects whose versions are kept in memory at once (a project's rows
// are some hundred days).
const maxSnapshots = 20_000

// snapshot is one project's (or the rates') rows of data_versions.
type snapshot struct {
	whole int64        // the sum of the versions covering the project whatever the day
	days  []dayVersion // the versions by day, in day order
}

type dayVersion struct {
	day     time.Time
	version int64
}

// Version identifies the state of what a query reads: equal Versions of the same project and days
// mean nothing they cover was written in between. It is the sum of the versions of the rows
// covered: every move raises one row's version, so the sum only grows, whatever order the
// writers' transactions commit in (a maximum would not: a transaction committing after another
// that took a later value would leave it unchanged).
type Version int64

// NewVersions reads data_versions through pool. byProject keys every answer of a project by all
// of its days (the coarser grain, for measuring what days buy: MTK_QUERY_CACHE_GRAIN).
func NewVersions(pool *pgxpool.Pool, byProject bool) *Versions {
	return &Versions{pool: pool, byProject: byProject, snaps: map[string]*snapshot{},
		heard: map[string]uint64{}, waiting: map[string]chan struct{}{}}
}

// Of is the Version of a project's answers that read the local days [first, after) (civil
// dates), and false when versions are unknown (not listening).
func (v *Versions) Of(ctx context.Context, project string, first, after time.Time) (Version, bool, error) {
	s, ok, err := v.snapshot(ctx, project)
	if err != nil || !ok {
		return 0, false, err
	}
	rates, ok, err := v.snapshot(ctx, "")
	if err != nil || !ok {
		return 0, false, err
	}
	if v.byProject {
		first, after = whole, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return Version(s.whole + s.sum(first, after) + rates.sum(first, after)), true, nil
}

// sum adds the versions of the days [first, after).
func (s *snapshot) sum(first, after time.Time) int64 {
	i := sort.Search(len(s.days), func(i int) bool { return !s.days[i].day.Before(first) })
	var n int64
	for ; i < len(s.days) && s.days[i].day.Before(after); i++ {
		n += s.days[i].version
	}
	return n
}

func (v *Versions) snapshot(ctx context.Context, project string) (*snapshot, bool, error) {
	v.mu.Lock()
	if !v.live {
		v.mu.Unlock()
		return nil, false, nil
	}
	if s := v.snaps[project]; s != nil {
		v.mu.Unlock()
		return s, true, nil
	}
	epoch, heard := v.epoch, v.heard[project]
	v.mu.Unlock()
	s, err := v.read(ctx, project)
	if err != nil {
		return nil, false, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.epoch != epoch {
		return nil, false, nil
	}
	if v.heard[project] == heard {
		if len(v.snaps) >= maxSnapshots { // projects not asked for lately are read again when they are
			clear(v.snaps)
		}
		v.snaps[project] = s
	}
	return s, true, nil
}

func (v *Versions) read(ctx context.Context, project string) (*snapshot, error) {
	rows, err := v.pool.Query(ctx, "SELECT day, version, kind IN ('facts', 'rates') FROM data_versions WHERE project_id = $1 ORDER BY day", project)
	if err != nil {
		return nil, fmt.Errorf("data versions: %w", err)
	}
	s := &snapshot{}
	var dv dayVersion
	var byDay bool
	_, err = pgx.ForEachRow(rows, []any{&dv.day, &dv.version, &byDay}, func() error {
		if byDay {
			s.days = append(s.days, dv)
		} else {
			s.whole += dv.version
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("data versions: %w", err)
	}
	return s, nil
}

// Subscribe has d hear moves: versions are known from the moment d listens, unknown again when
// its connection drops, until it is back (what was read before is forgotten either way). `mtk
// serve` subscribes its dispatcher (internal/wire).
func (v *Versions) Subscribe(d *pglisten.Dispatcher) error {
	return d.Handle(versionsChannel, pglisten.Subscriber{Notify: v.moved,
		Up: func() { v.setLive(true) }, Down: func() { v.setLive(false) }})
}

// setLive starts or ends an epoch: what was read before is forgotten either way.
func (v *Versions) setLive(live bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.live = live
	v.epoch++
	clear(v.snaps)
}

// Live reports whether versions are known (its dispatcher listens).
func (v *Versions) Live() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.live
}

// barrierPrefix starts the payloads of Heard's notifications; a project id never does.
const barrierPrefix = "heard "

func (v *Versions) moved(payload string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if strings.HasPrefix(payload, barrierPrefix) {
		if ch := v.waiting[payload]; ch != nil {
			delete(v.waiting, payload)
			close(ch)
		}
		return
	}
	delete(v.snaps, payload)
	v.heard[payload]++
}

// Heard returns once every move committed before it was called has been heard: PostgreSQL
// delivers notifications in commit order, so hearing one sent now means hearing all before it.
// Tests and benchmarks use it to read answers right after a write.
func (v *Versions) Heard(ctx context.Context) error {
	for !v.Live() { // a notification sent before LISTEN would never be heard
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	payload := fmt.Sprintf("%s%d.%p", barrierPrefix, v.barrier.Add(1), v)
	ch := make(chan struct{})
	v.mu.Lock()
	v.waiting[payload] = ch
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		delete(v.waiting, payload)
		v.mu.Unlock()
	}()
	if _, err := v.pool.Exec(ctx, "SELECT pg_notify($1, $2)", versionsChannel, payload); err != nil {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
