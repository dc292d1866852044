package main

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/benchmarks/internal/benchenv"
	"mtk/benchmarks/internal/dashmix"
	"mtk/engine/enginetest"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/internal/loadgen"
	"mtk/platform"
	"mtk/schema"
)

// env is what every run works on: the fresh databases, the tenant and the dashboard's queries.
type env struct {
	pgURL, chURL string
	pg           *pgxpool.Pool
	ch           driver.Conn
	tenant       benchenv.Tenant
	queries      []loadgen.Query
	// logs is the directory the processes' logs go to.
	logs string
}

// Days of generated data from dataStart: the mix reads up to 90 days back from the last.
var dataStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const dataDays = 90

// prepare makes fresh databases, migrates them, makes the tenant (its key may write events and
// read data) and generates rows ad facts for its project.
func prepare(ctx context.Context, f flags) (*env, error) {
	pgURL, chURL, err := benchenv.FreshDatabases(ctx, config.FromEnv(), dbName)
	if err != nil {
		return nil, err
	}
	e := &env{pgURL: pgURL, chURL: chURL}
	if e.logs, err = os.MkdirTemp("", "mtk-bench-replicas-"); err != nil {
		return nil, err
	}
	if e.pg, err = db.OpenPostgres(ctx, pgURL); err != nil {
		return nil, err
	}
	if e.ch, err = db.OpenClickHouse(ctx, chURL); err != nil {
		e.close(false)
		return nil, err
	}
	if err := e.migrate(ctx); err != nil {
		e.close(false)
		return nil, err
	}
	if e.tenant, err = benchenv.NewTenant(ctx, e.pg, clock.Real{}, auth.ScopeTrackingWrite, auth.ScopeDataRead); err != nil {
		e.close(false)
		return nil, err
	}
	if err := e.generate(ctx, f.rows); err != nil {
		e.close(false)
		return nil, err
	}
	for _, q := range dashmix.Mix(e.tenant.Project.ID, dataStart.AddDate(0, 0, dataDays-1)) {
		body, err := json.Marshal(q.Input)
		if err != nil {
			e.close(false)
			return nil, err
		}
		e.queries = append(e.queries, loadgen.Query{Name: q.Name, Body: body})
	}
	return e, nil
}

func (e *env) migrate(ctx context.Context) error {
	if _, err := schema.MigratePostgres(ctx, e.pg); err != nil {
		return err
	}
	_, err := schema.MigrateClickHouse(ctx, e.ch)
	return err
}

// generate writes the tenant's project's entities, rates and base facts, and rows ad facts,
// shaped as the query benchmark's data (8 campaigns × 4 ad sets × 5 ads per network).
func (e *env) generate(ctx context.Context, rows int) error {
	p := e.tenant.Project
	ds, err := enginetest.Generate(enginetest.Config{Seed: 1, Campaigns: 8, AdSets: 4, Ads: 5, FactChance: 0.01,
		Projects: []enginetest.ProjectSpec{{ID: p.ID, TimeZone: p.Timezone, Currency: p.Currency, Start: dataStart, Days: dataDays,
			AccountCurrencies: map[string]string{platform.KindBeta: "USD", platform.KindGamma: "EUR"},
			Connections:       map[string]string{platform.KindAlpha: e.tenant.Alpha.ID},
			Accounts:          map[string]string{platform.KindAlpha: benchenv.AlphaAccount}}}})
	if err != nil {
		return err
	}
	if err := ds.Write(ctx, e.ch); err != nil {
		return err
	}
	return ds.StreamAdFacts(ctx, e.ch, 1, rows)
}

// close closes the stores' connections, and removes the processes' logs when the run went well.
func (e *env) close(ok bool) {
	if ok && e.logs != "" {
		os.RemoveAll(e.logs)
	}
	if e.pg != nil {
		e.pg.Close()
	}
	if e.ch != nil {
		e.ch.Close()
	}
}
