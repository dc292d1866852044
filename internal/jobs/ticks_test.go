package jobs

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/testenv"
)

// Two workers' runners sharing PostgresTicks run each tick of a job once: both fire for every
// tick of an "@every 1m" job (the second 0 to 50 s after the first, as workers started at
// different moments do), and the job runs once a tick; "@every 1h" and a cron spec tick apart,
// and a runner without Ticks runs every tick it fires for.
func TestTicksRunOnceAcrossWorkers(t *testing.T) {
	pg := testenv.Postgres(t)
	runs := map[string]*atomic.Int32{"minutely": {}, "hourly": {}, "spec": {}}
	declare := func() []Job {
		var js []Job
		for name, schedule := range map[string]string{"minutely": "@every 1m", "hourly": "@every 1h", "spec": "*/5 * * * *"} {
			js = append(js, Job{Name: name, Schedule: schedule, Run: func(context.Context) error { runs[name].Add(1); return nil }})
		}
		return js
	}
	var workers []*Runner
	for range 2 {
		pool, err := pgxpool.New(context.Background(), pg.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		r, err := New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), declare())
		if err != nil {
			t.Fatal(err)
		}
		r.Ticks = PostgresTicks(pool)
		workers = append(workers, r)
	}
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	// fire has both workers fire for every job at start + at, the second offset later.
	fire := func(at, offset time.Duration) {
		var wg sync.WaitGroup
		for i, r := range workers {
			for name := range runs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r.scheduled(r.jobs[name], start.Add(at+time.Duration(i)*offset))
				}()
			}
		}
		wg.Wait()
	}
	for minute := range 12 {
		fire(time.Duration(minute)*time.Minute+7*time.Second, time.Duration(minute)*4*time.Second)
	}
	fire(2*time.Hour, 0)
	for name, want := range map[string]int32{"minutely": 13, "hourly": 2, "spec": 13} {
		if got := runs[name].Load(); got != want {
			t.Errorf("%s ran %d times for 13 ticks fired by two workers, want %d", name, got, want)
		}
	}

	alone, err := New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), declare())
	if err != nil {
		t.Fatal(err)
	}
	alone.scheduled(alone.jobs["hourly"], start)
	alone.scheduled(alone.jobs["hourly"], start)
	if got := runs["hourly"].Load(); got != 4 {
		t.Errorf("a runner without Ticks ran 2 firings %d times, want 2", got-2)
	}
}
