// Package jobs runs mtk's background jobs on cron schedules (robfig/cron). Every job is declared
// in one table by the caller (name, schedule, function); the runner adds panic recovery, a random
// start delay (jitter) so that instances do not fire together, at most one run of a job at a
// time in a process, one run of each tick across the workers that share Ticks, a deadline per
// run (a store that stops answering fails the run, and the next scheduled one tries again), a
// log line per failure, and RunNow, a synchronous trigger for tests and operators.
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"mtk/internal/recovered"
)

// Job is one background job.
type Job struct {
	Name string
	// Schedule is a cron spec: "@every 1h", "*/5 * * * *", ...
	Schedule string
	// Jitter is the largest random delay before a scheduled run starts.
	Jitter time.Duration
	// Timeout bounds a run: its context ends then (0: DefaultTimeout).
	Timeout time.Duration
	Run     func(ctx context.Context) error
}

// DefaultTimeout bounds a run of a job that sets no Timeout.
const DefaultTimeout = 10 * time.Minute

// Runner schedules jobs.
type Runner struct {
	// Ticks, set before Start when several workers run the same jobs, lets each tick of a job
	// run on one of them. Nil: every tick runs here.
	Ticks Ticks

	cron *cron.Cron
	log  *slog.Logger
	ctx  context.Context
	jobs map[string]*entry
}

type entry struct {
	job Job
	// period is the length of the job's ticks: the delay of an "@every" schedule, a minute (the
	// finest a cron spec names) for the others. A tick is the period holding the firing instant,
	// counted from the zero time, so that every worker names it alike whenever it started.
	period  time.Duration
	running sync.Mutex
}

// New returns a runner for jobs; ctx bounds every run.
func New(ctx context.Context, log *slog.Logger, jobs []Job) (*Runner, error) {
	r := &Runner{cron: cron.New(), log: log, ctx: ctx, jobs: map[string]*entry{}}
	for _, j := range jobs {
		if _, dup := r.jobs[j.Name]; dup {
			return nil, fmt.Errorf("jobs: %q declared twice", j.Name)
		}
		sched, err := cron.ParseStandard(j.Schedule)
		if err != nil {
			return nil, fmt.Errorf("jobs: %s: schedule %q: %w", j.Name, j.Schedule, err)
		}
		e := &entry{job: j, period: time.Minute}
		if every, ok := sched.(cron.ConstantDelaySchedule); ok {
			e.period = every.Delay
		}
		r.jobs[j.Name] = e
		r.cron.Schedule(sched, cron.FuncJob(func() { r.scheduled(e, time.Now()) }))
	}
	return r, nil
}

// Start begins scheduling.
func (r *Runner) Start() { r.cron.Start() }

// Stop stops scheduling and waits for running jobs.
func (r *Runner) Stop() { <-r.cron.Stop().Done() }

// scheduled runs e for its tick holding now, unless its previous run is still going here or
// another runner sharing Ticks claimed the tick.
func (r *Runner) scheduled(e *entry, now time.Time) {
	if !e.running.TryLock() {
		return // the previous run is still going: skip this tick
	}
	defer e.running.Unlock()
	if r.Ticks != nil {
		ctx, cancel := context.WithTimeout(r.ctx, claimTimeout)
		mine, err := r.Ticks.Claim(ctx, e.job.Name, now.Truncate(e.period))
		cancel()
		if err != nil {
			r.log.Error("job tick not claimed", "job", e.job.Name, "error", err.Error())
		}
		if !mine {
			return
		}
	}
	if e.job.Jitter > 0 {
		select {
		case <-time.After(rand.N(e.job.Jitter)):
		case <-r.ctx.Done():
			return
		}
	}
	if err := r.run(e); err != nil {
		r.log.Error("job failed", "job", e.job.Name, "error", err.Error())
	}
}

// claimTimeout bounds claiming a tick.
const claimTimeout = 10 * time.Second

// ErrRunning is returned by RunNow when the job is already running.
var ErrRunning = fmt.Errorf("jobs: already running")

// RunNow runs a job synchronously, unless it is running already; it claims no tick.
func (r *Runner) RunNow(name string) error {
	e, ok := r.jobs[name]
	if !ok {
		return fmt.Errorf("jobs: no job %q", name)
	}
	if !e.running.TryLock() {
		return ErrRunning
	}
	defer e.running.Unlock()
	return r.run(e)
}

// run runs e once, its caller holding e.running; a panic is its error.
func (r *Runner) run(e *entry) error {
	timeout := e.job.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(r.ctx, timeout)
	defer cancel()
	return recovered.Call(func() error { return e.job.Run(ctx) })
}
