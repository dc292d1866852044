package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"mtk/ingest/attribution"
	"mtk/ingest/journeys"
	"mtk/internal/clock"
	"mtk/internal/config"
)

// backfillJourneys: mtk backfill journeys [--redo] fills the journey outbox (what attribution
// models credit) with the orders and touches stored before it existed; the workers' journey
// drainer then moves them to ClickHouse.
func backfillJourneys(ctx context.Context, rest []string, out io.Writer) error {
	fs := flag.NewFlagSet("backfill journeys", flag.ContinueOnError)
	redo := fs.Bool("redo", false, "visit projects already backfilled too (copies only what is missing)")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	return withStores(ctx, func(_ config.Config, st stores) error {
		resolver := attribution.New(st.pg, clock.Real{}, time.Minute)
		return journeys.Backfill(ctx, st.pg, st.ch, resolver, *redo, time.Now(), func(p journeys.Progress) {
			state := "in progress"
			if p.Done {
				state = "done"
			}
			fmt.Fprintf(out, "%s: %d orders, %d touches queued, %s\n", p.Project, p.Orders, p.Touches, state)
		})
	})
}
