package adsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/internal/chfence"
	"mtk/internal/clock"
	"mtk/platform"
)

// ConnectorFunc makes the connector of a connection (networks.Factory.Connector).
type ConnectorFunc func(platform.Connection) (Connector, error)

// Syncer runs syncs of connections.
type Syncer struct {
	Store      *Store
	ClickHouse driver.Conn
	// Cluster is the ClickHouse cluster that ClickHouse belongs to (MTK_CLICKHOUSE_CLUSTER), ""
	// for one server: the servers where the inserts of an interrupted run may still run.
	Cluster    string
	Connectors ConnectorFunc
	Clock      clock.Clock
	// Projects and Connections are the platform's: a run reads its project, and records itself
	// and the connection's outcome in Connections.
	Projects    *platform.Projects
	Connections *platform.Connections
	// Observe, when set, hears about every recorded run: its result (duration, rows written)
	// and its error, nil for a success (metrics).
	Observe func(c platform.Connection, res Result, err error)

	// failAt, when set (by tests), is asked at each failure point of a batch; an error stops
	// the run there, as a failed write or a crash would.
	failAt func(point string) error
}

// ErrBusy means another session (another mtk instance, or another run here) is syncing the
// connection.
var ErrBusy = errors.New("the connection is being synced by another run")

// ErrNotSyncable means the connection is paused, disabled or not an ad network.
var ErrNotSyncable = errors.New("the connection is not an active ad network connection")

// Options shape one run.
type Options struct {
	// Backfill reads Days days up to today; otherwise the run is full (first sync) or
	// incremental.
	Backfill bool
	Days     int
	// Progress, when set, hears each step.
	Progress func(Progress)
	// Due, set by the scheduler, is the candidate it found due. A connection whose latest run,
	// read once the lock is held, is not the one Due saw was synced by another worker since the
	// scheduler listed it: the run is skipped (ErrBusy), not made twice.
	Due *platform.SyncCandidate
}

// Progress is how far a run is: Done of Total fetch steps.
type Progress struct {
	Step        string
	Done, Total int
}

// Result is a finished run.
type Result struct {
	RunID    string
	SyncType string
	Rows     int64
	Took     time.Duration
}

// Syncable reports whether a connection is synced at all: an ad network, active or in error.
func Syncable(c platform.Connection) bool {
	return (c.Kind == platform.KindAlpha || c.Kind == platform.KindBeta || c.Kind == platform.KindGamma) &&
		(c.Status == platform.ConnActive || c.Status == platform.ConnError)
}

// Run syncs one connection under its advisory lock and records the run in sync_runs (its rows
// include those of a pending batch it completed); a failed run is recorded as error with its
// message and counts toward the connection's error status.
func (s *Syncer) Run(ctx context.Context, c platform.Connection, opt Options) (Result, error) {
	if !Syncable(c) {
		return Result{}, ErrNotSyncable
	}
	release, ok, err := s.Store.tryLock(ctx, c.ID)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{}, ErrBusy
	}
	defer release()
	if opt.Due != nil {
		latest, err := s.Connections.LatestSyncStart(ctx, c.ID)
		if err != nil {
			return Result{}, err
		}
		if (latest == nil) != (opt.Due.LastStart == nil) || latest != nil && !latest.Equal(*opt.Due.LastStart) {
			return Result{}, ErrBusy
		}
	}
	last, ran, err := s.Connections.LastSuccessfulSync(ctx, c.ID)
	if err != nil {
		return Result{}, err
	}
	res := Result{SyncType: platform.SyncIncremental}
	switch {
	case opt.Backfill:
		res.SyncType = platform.SyncBackfill
	case !ran:
		res.SyncType = platform.SyncFull
	}
	started := s.Clock.Now()
	if res.RunID, err = s.Connections.StartSyncRun(ctx, c.ID, res.SyncType, started); err != nil {
		return res, err
	}
	var lastDate *time.Time
	if ran {
		lastDate = &last
	}
	// A batch that a failed run left pending is completed first, so that the snapshot this run
	// compares with is what ClickHouse holds.
	if res.Rows, err = s.recoverPending(ctx, c.ID); err == nil {
		var n int64
		n, err = s.sync(ctx, c, res.RunID, res.SyncType, opt, lastDate, started)
		res.Rows += n
	}
	res.Took = s.Clock.Now().Sub(started)
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if ferr := s.Connections.FinishSyncRun(fctx, c.ID, res.RunID, res.Rows, err, s.Clock.Now()); ferr != nil && err == nil {
		err = ferr
	}
	if s.Observe != nil {
		s.Observe(c, res, err)
	}
	if err != nil {
		return res, fmt.Errorf("sync of %s: %w", c.ID, err)
	}
	return res, nil
}

// sync does the work of a run and returns the rows it wrote to ClickHouse. Its fact differences
// form batch runID: stored as pending with the objects, written to ClickHouse, then applied to
// the snapshot (see land).
func (s *Syncer) sync(ctx context.Context, c platform.Connection, runID, syncType string, opt Options, lastSuccess *time.Time, now time.Time) (int64, error) {
	report := func(step string, done, total int) {
		if opt.Progress != nil {
			opt.Progress(Progress{Step: step, Done: done, Total: total})
		}
	}
	proj, err := s.Projects.Project(ctx, c.ProjectID)
	if err != nil {
		return 0, err
	}
	projectLoc, err := time.LoadLocation(proj.Timezone)
	if err != nil {
		return 0, err
	}
	conn, err := s.Connectors(c)
	if err != nil {
		return 0, err
	}
	report("objects", 0, 1)
	acct, err := conn.Account(ctx)
	if err != nil {
		return 0, err
	}
	accountLoc, err := time.LoadLocation(acct.TimeZone)
	if err != nil {
		return 0, fmt.Errorf("account time zone %q: %w", acct.TimeZone, err)
	}
	objs, err := conn.Objects(ctx)
	if err != nil {
		return 0, err
	}
	report("objects", 1, 1)

	today := now.In(accountLoc).Format(time.DateOnly)
	lastDate := ""
	if lastSuccess != nil {
		lastDate = lastSuccess.In(accountLoc).Format(time.DateOnly)
	}
	probe := planWindow(syncType, today, lastDate, opt.Days, nil)
	have, err := s.Store.loadBuckets(ctx, c.ID, probe.since, today)
	if err != nil {
		return 0, err
	}
	w := planWindow(syncType, today, lastDate, opt.Days, hourDates(have))
	days, hours, err := fetch(ctx, conn, w, report)
	if err != nil {
		return 0, err
	}
	changes := diff(w, target(w, days, hours, conn.HasReach()), have)

	report("writing", 0, 1)
	b := batch{id: runID, changes: changes, query: chfence.NewPrefix(queryPrefix), sink: factSink{projectID: proj.ID, connectionID: c.ID, source: c.Kind,
		account: acct, accountLoc: accountLoc, projectLoc: projectLoc, now: now}}
	tx, err := s.Store.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
	ents, err := s.writeObjects(ctx, tx, c, proj.ID, acct, objs, now)
	if err != nil {
		return ents, err
	}
	if len(changes) > 0 {
		if err := saveBatch(ctx, tx, b, now); err != nil {
			return ents, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return ents, err
	}
	var n int64
	if len(changes) > 0 {
		if n, err = s.land(ctx, b, false); err != nil {
			return ents + n, err
		}
	}
	report("writing", 1, 1)
	return ents + n, nil
}

// hourDates are the dates that hold hour buckets.
func hourDates(have map[bucketKey]bucket) []string {
	var out []string
	for k := range have {
		if k.Hour != DayBucket {
			out = append(out, k.Date)
		}
	}
	return out
}

// fetchDays is how many days one daily insights request covers.
const fetchDays = 31

// fetch reads day rows for the whole window (older days, and reach) and hour rows day by day
// from hourFrom on, reporting each request.
func fetch(ctx context.Context, conn Connector, w window, report func(string, int, int)) (days, hours []Insight, err error) {
	var dayChunks [][2]string
	dayEnd := w.today
	if !conn.HasReach() {
		dayEnd = addDays(w.hourFrom, -1)
	}
	for d := w.since; d <= dayEnd; d = addDays(d, fetchDays) {
		dayChunks = append(dayChunks, [2]string{d, min(addDays(d, fetchDays-1), dayEnd)})
	}
	var hourDays []string
	for d := w.hourFrom; d <= w.today; d = addDays(d, 1) {
		hourDays = append(hourDays, d)
	}
	total, done := len(dayChunks)+len(hourDays), 0
	report("insights", done, total)
	for _, ch := range dayChunks {
		rows, err := conn.Insights(ctx, ch[0], ch[1], GrainDay)
		if err != nil {
			return nil, nil, err
		}
		days = append(days, rows...)
		done++
		report("insights", done, total)
	}
	for _, d := range hourDays {
		rows, err := conn.Insights(ctx, d, d, GrainHour)
		if err != nil {
			return nil, nil, err
		}
		hours = append(hours, rows...)
		done++
		report("insights", done, total)
	}
	return days, hours, nil
}
