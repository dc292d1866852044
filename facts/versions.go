package facts

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A data version changes whenever what an answer reads changes (schema/postgres/0011): the
// writers of ClickHouse move it in PostgreSQL after their write lands, and the answer cache keys
// answers by it (Versions). Versions are kept per local day of a project's facts, so that
// today's events leave last month's answers standing.

// Kind is what a data version covers.
type Kind string

// The kinds of data version.
const (
	// KindFacts covers a project's facts on one local day (sync batches, the fact outbox).
	KindFacts Kind = "facts"
	// KindEntities covers a project's entity names (sync's renames), whatever the day.
	KindEntities Kind = "entities"
	// KindSettings covers what a project's answers depend on besides data: its connections,
	// currency and zone.
	KindSettings Kind = "settings"
	// KindRates covers the exchange rates of one day, for every project.
	KindRates Kind = "rates"
)

// whole is the day of the kinds that cover a project whatever the day: before every fact's day.
var whole = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)

// versionsChannel is the PostgreSQL channel on which a move is announced, with the project's id
// (empty for rates) as payload.
const versionsChannel = "mtk_data_versions"

// Change is one thing a write changed.
type Change struct {
	Project string
	Kind    Kind
	Day     time.Time // a civil date (midnight UTC), for facts and rates
}

// FactsOn is the change of a project's facts on the local day (a civil date).
func FactsOn(project string, day time.Time) Change {
	return Change{Project: project, Kind: KindFacts, Day: day}
}

// EntitiesOf is the change of a project's entity names.
func EntitiesOf(project string) Change {
	return Change{Project: project, Kind: KindEntities, Day: whole}
}

// SettingsOf is the change of a project's settings or connections.
func SettingsOf(project string) Change {
	return Change{Project: project, Kind: KindSettings, Day: whole}
}

// RatesOn is the change of the exchange rates of day (a civil date).
func RatesOn(day time.Time) Change { return Change{Kind: KindRates, Day: day} }

// FactChanges are the changes that writing fs in the zone loc makes: one per project and local day.
func FactChanges(loc *time.Location, fs []Fact) []Change {
	return factDays(loc, fs, func(f Fact) (string, time.Time) { return f.ProjectID, f.Time })
}

// factDays are the facts changes of rows at the projects and instants that at gives: one per
// project and local day in loc, in the order first seen.
func factDays[T any](loc *time.Location, rows []T, at func(T) (string, time.Time)) []Change {
	var out []Change
	seen := map[Change]bool{}
	for _, r := range rows {
		project, t := at(r)
		c := FactsOn(project, LocalDay(t, loc))
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// movedSQL moves the versions of the changes ($1 projects, $2 kinds, $3 days) to fresh values of
// the sequence and notifies each project once. Rows are taken in key order, so that two writers
// moving some of the same rows lock them in the same order and never deadlock.
const movedSQL = `WITH c AS (SELECT DISTINCT p, k, d FROM unnest($1::text[], $2::text[], $3::date[]) AS c (p, k, d)),
	v AS (INSERT INTO data_versions AS v (project_id, kind, day, version)
		SELECT p, k, d, nextval('data_version_seq') FROM c ORDER BY p, k, d
		ON CONFLICT (project_id, kind, day) DO UPDATE SET version = EXCLUDED.version
		RETURNING project_id)
	SELECT count(pg_notify('` + versionsChannel + `', p)) FROM (SELECT DISTINCT project_id AS p FROM v) n`

func movedArgs(changes []Change) []any {
	projects := make([]string, len(changes))
	kinds := make([]string, len(changes))
	days := make([]time.Time, len(changes))
	for i, c := range changes {
		projects[i], kinds[i], days[i] = c.Project, string(c.Kind), c.Day
	}
	return []any{projects, kinds, days}
}

// Execer runs a statement: a pgx.Tx, a pgx.Conn or a pool.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Moved records the changes through q: inside the writer's transaction, after its ClickHouse
// write, so that a version never moves before what it covers can be read.
func Moved(ctx context.Context, q Execer, changes []Change) error {
	if len(changes) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, movedSQL, movedArgs(changes)...)
	return err
}

// QueueMoved queues Moved's statement into b, for writers that send their transaction as a batch.
func QueueMoved(b *pgx.Batch, changes []Change) {
	if len(changes) > 0 {
		b.Queue(movedSQL, movedArgs(changes)...)
	}
}
