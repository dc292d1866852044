package platform

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/ids"
)

// The sync types and statuses of the contract.
const (
	SyncFull        = "full"
	SyncIncremental = "incremental"
	SyncBackfill    = "backfill"

	SyncRunning = "running"
	SyncSuccess = "success"
	SyncError   = "error"
)

// SyncRun is one synchronisation of a connection.
type SyncRun struct {
	ID           string     `json:"id"`
	ConnectionID string     `json:"-"`
	SyncType     string     `json:"sync_type"`
	Status       string     `json:"status"`
	StartedAt    time.Time  `json:"started_at"`
	CompletedAt  *time.Time `json:"completed_at"`
	RowsSynced   int64      `json:"rows_synced"`
	Error        *string    `json:"error"`
}

// FailuresBeforeError is how many failed syncs in a row put a connection in error.
const FailuresBeforeError = 3

// StartSyncRun records that a run of the connection started at at, and returns its id.
func (s *Connections) StartSyncRun(ctx context.Context, connectionID, syncType string, at time.Time) (string, error) {
	id := ids.New(ids.SyncRun)
	_, err := s.pool.Exec(ctx, `INSERT INTO sync_runs (id, connection_id, sync_type, status, started_at) VALUES ($1, $2, $3, $4, $5)`,
		id, connectionID, syncType, SyncRunning, at)
	return id, err
}

// FinishSyncRun records a run's end (runErr nil for a success) and, in the same transaction,
// moves the connection's status: back to active after a success; error after the
// FailuresBeforeError-th failure in a row. Paused and disabled connections keep theirs.
func (s *Connections) FinishSyncRun(ctx context.Context, connectionID, runID string, rows int64, runErr error, at time.Time) error {
	status, errText := SyncSuccess, (*string)(nil)
	if runErr != nil {
		msg := runErr.Error()
		status, errText = SyncError, &msg
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sync_runs SET status = $2, completed_at = $3, rows_synced = $4, error = $5 WHERE id = $1`,
			runID, status, at, rows, errText); err != nil {
			return err
		}
		if runErr == nil {
			_, err := tx.Exec(ctx, `UPDATE connections SET consecutive_failures = 0,
				status = CASE WHEN status = $2 THEN $3 ELSE status END WHERE id = $1`, connectionID, ConnError, ConnActive)
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE connections SET consecutive_failures = consecutive_failures + 1,
			status = CASE WHEN status = $2 AND consecutive_failures + 1 >= $4 THEN $3 ELSE status END WHERE id = $1`,
			connectionID, ConnActive, ConnError, FailuresBeforeError)
		return err
	})
}

// LastSuccessfulSync is when the connection's latest successful run started; ok is false when
// none succeeded yet.
func (s *Connections) LastSuccessfulSync(ctx context.Context, connectionID string) (started time.Time, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT started_at FROM sync_runs WHERE connection_id = $1 AND status = $2
		ORDER BY started_at DESC LIMIT 1`, connectionID, SyncSuccess).Scan(&started)
	if isNoRows(err) {
		return started, false, nil
	}
	return started, err == nil, err
}

// SyncCandidate is a connection that syncs, with its workspace's tier and its latest run's start
// (nil: it never ran).
type SyncCandidate struct {
	ID, WorkspaceID, Tier string
	LastStart             *time.Time
}

// SyncCandidates lists the connections that sync: the active and error ones of the ad networks.
func (s *Connections) SyncCandidates(ctx context.Context) ([]SyncCandidate, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.id, c.workspace_id, w.tier,
			(SELECT max(r.started_at) FROM sync_runs r WHERE r.connection_id = c.id)
		FROM connections c JOIN workspaces w ON w.id = c.workspace_id
		WHERE c.kind = ANY($1) AND c.status = ANY($2) ORDER BY c.id`,
		[]string{KindAlpha, KindBeta, KindGamma}, []string{ConnActive, ConnError})
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[SyncCandidate])
}

// LatestSyncStart is when a connection's latest run started (nil: it never ran).
func (s *Connections) LatestSyncStart(ctx context.Context, connectionID string) (*time.Time, error) {
	var started *time.Time
	err := s.pool.QueryRow(ctx, "SELECT max(started_at) FROM sync_runs WHERE connection_id = $1", connectionID).Scan(&started)
	return started, err
}

// historyLength is how many runs the sync status shows.
const historyLength = 20

// ListSyncRuns returns a connection's latest runs, newest first.
func (s *Connections) ListSyncRuns(ctx context.Context, connectionID string) ([]SyncRun, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, connection_id, sync_type, status, started_at, completed_at, rows_synced, error
		FROM sync_runs WHERE connection_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2`, connectionID, historyLength)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (SyncRun, error) {
		var r SyncRun
		err := row.Scan(&r.ID, &r.ConnectionID, &r.SyncType, &r.Status, &r.StartedAt, &r.CompletedAt, &r.RowsSynced, &r.Error)
		return r, err
	})
}

// LastSync is the last completed successful run of a sync status.
type LastSync struct {
	CompletedAt time.Time `json:"completed_at"`
	RowsSynced  int64     `json:"rows_synced"`
	SyncType    string    `json:"sync_type"`
}

// Schedule is when a connection syncs. Synced is false for a connection that is never synced:
// a custom one (its data comes by webhook and events), a paused or a disabled one; it then has
// no next run.
type Schedule struct {
	Tier                string     `json:"tier"`
	Synced              bool       `json:"synced"`
	SyncIntervalMinutes int        `json:"sync_interval_minutes"`
	NextSyncEstimate    *time.Time `json:"next_sync_estimate"`
	RemainingSeconds    int        `json:"remaining_seconds"`
}

// SyncStatus is the answer of GET /v3/connections/{id}/sync.
type SyncStatus struct {
	ConnectionID string    `json:"connection_id"`
	Status       string    `json:"status"`
	LastSync     *LastSync `json:"last_sync"`
	History      []SyncRun `json:"history"`
	Schedule     Schedule  `json:"schedule"`
}

// SyncStatusOf builds a connection's sync status: its history, its last successful run, and the
// next run estimated from the workspace tier's interval (due now when it never ran; none for a
// custom connection, which is never synced, nor while the connection is paused or disabled).
func (s *Connections) SyncStatusOf(ctx context.Context, c Connection) (SyncStatus, error) {
	w, err := s.workspaces.Workspace(ctx, c.WorkspaceID)
	if err != nil {
		return SyncStatus{}, err
	}
	runs, err := s.ListSyncRuns(ctx, c.ID)
	if err != nil {
		return SyncStatus{}, err
	}
	now := s.clock.Now()
	interval := SyncInterval(w.Tier)
	st := SyncStatus{
		ConnectionID: c.ID, Status: c.Status, History: runs,
		Schedule: Schedule{Tier: w.Tier, SyncIntervalMinutes: int(interval / time.Minute)},
	}
	if st.History == nil {
		st.History = []SyncRun{}
	}
	var lastStart time.Time
	for _, r := range runs {
		if lastStart.IsZero() {
			lastStart = r.StartedAt
		}
		if st.LastSync == nil && r.Status == SyncSuccess && r.CompletedAt != nil {
			st.LastSync = &LastSync{CompletedAt: *r.CompletedAt, RowsSynced: r.RowsSynced, SyncType: r.SyncType}
		}
	}
	if c.Kind == KindCustom || c.Status == ConnPaused || c.Status == ConnDisabled {
		return st, nil
	}
	st.Schedule.Synced = true
	next := now
	if !lastStart.IsZero() && lastStart.Add(interval).After(now) {
		next = lastStart.Add(interval)
	}
	st.Schedule.NextSyncEstimate = &next
	st.Schedule.RemainingSeconds = int(next.Sub(now).Round(time.Second) / time.Second)
	return st, nil
}
