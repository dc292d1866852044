package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/events"
)

// drainRow is one drain cell: partitions partitions drained by as many worker processes.
type drainRow struct {
	partitions int
	backlog    int
	// queued is how long queueing the backlog took; drained how long from the workers' start
	// until the outbox was empty, ready how long until every worker answered /readyz.
	queued, drained, ready time.Duration
}

func (r drainRow) rate() float64 { return float64(r.backlog) / r.drained.Seconds() }

// drainProjects is how many projects the backlog is spread over: enough for every partition to
// get a similar share.
const drainProjects = 64

// runDrains measures each partition count of f.partitions.
func runDrains(ctx context.Context, e *env, f flags) ([]drainRow, error) {
	var rows []drainRow
	for _, n := range f.partitions {
		r := drainRow{partitions: n, backlog: f.backlog}
		tag := fmt.Sprintf("drain%d", n)
		start := time.Now()
		err := queueBacklog(ctx, e, tag, f.backlog)
		if err != nil {
			return nil, err
		}
		r.queued = time.Since(start)
		fmt.Printf("drain, %d partitions: %d events queued in %s; starting %d workers\n", n, f.backlog, r.queued.Round(time.Millisecond), n)
		if err := drainCell(ctx, e, f, &r); err != nil {
			return nil, err
		}
		var stored uint64
		if err := e.ch.QueryRow(ctx, "SELECT count() FROM events WHERE event_id LIKE ?", tag+"-%").Scan(&stored); err != nil {
			return nil, err
		}
		if stored != uint64(f.backlog) {
			return nil, fmt.Errorf("drain, %d partitions: %d events queued, %d in ClickHouse", n, f.backlog, stored)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// drainCell starts r.partitions workers and times them until the event outbox is empty.
func drainCell(ctx context.Context, e *env, f flags, r *drainRow) error {
	ports, err := freePorts(r.partitions + 1)
	if err != nil {
		return err
	}
	fl := &fleet{}
	defer fl.stop()
	// All at once, as after an outage's end: each takes the first partition no other holds.
	start := time.Now()
	procs := make([]*proc, r.partitions)
	for i, p := range ports[:r.partitions] {
		if procs[i], err = fl.mtk(e, f, "worker", p, r.partitions, ports[r.partitions]); err != nil {
			return err
		}
	}
	for i, p := range procs {
		if err := waitReady(ctx, p, ports[i]); err != nil {
			return err
		}
	}
	r.ready = time.Since(start)
	if err := waitEmpty(ctx, e, "event_outbox", 5*time.Minute); err != nil {
		return err
	}
	r.drained = time.Since(start)
	return nil
}

// queueBacklog queues n events (event ids tag-0 …) in the event outbox, as the API would while
// ClickHouse is down, over drainProjects projects, in transactions of 5,000.
func queueBacklog(ctx context.Context, e *env, tag string, n int) error {
	const batch = 5000
	now := time.Now().UTC()
	for from := 0; from < n; from += batch {
		rows := make([]events.EventRow, 0, batch)
		for i := from; i < min(n, from+batch); i++ {
			rows = append(rows, events.EventRow{ProjectID: fmt.Sprintf("prj_drain_%02d", i%drainProjects), ContainerID: "ctr_drain",
				EventID: fmt.Sprintf("%s-%d", tag, i), Time: now, ReceivedAt: now, Name: "PageView", Source: "web",
				UTMSource: "alpha", UTMCampaign: "Bench|900", UTMMedium: "Set|901", UTMContent: "Ad|902",
				CampaignID: "900", AdsetID: "901", AdID: "902", PageURL: "https://bench.example/p?utm_source=alpha",
				Currency: "BRL", ClientIP: "203.0.113.7", UserAgent: "Mozilla/5.0 (bench)", Body: `{"event_name":"PageView"}`})
		}
		b := &pgx.Batch{}
		events.QueueEvents(b, rows)
		err := pgx.BeginFunc(ctx, e.pg, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
		if err != nil {
			return err
		}
	}
	return nil
}
