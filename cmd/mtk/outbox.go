package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"mtk/ingest/conversions"
	"mtk/platform"
)

// runOutbox shows and steers the conversion outbox: list (pending and dead by default), retry
// ID (make a dead or pending conversion due now) and stats (the outboxes' counts, with how long
// settled conversions are kept).
func runOutbox(ctx context.Context, args []string, out io.Writer) error {
	sub, rest, err := subcommand(args, "list", "retry", "stats")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("outbox "+sub, flag.ContinueOnError)
	status := flagsOf(fs, sub, "list").String("status", "", "pending, sent or dead (default pending and dead)")
	limit := flagsOf(fs, sub, "list").Int("limit", 50, "how many, newest first")
	asJSON := flagsOf(fs, sub, "list", "stats").Bool("json", false, "print JSON")
	positional, err := parseFlags(fs, rest)
	if err != nil {
		return err
	}
	return withPlatform(ctx, func(s *platform.Services, _ string) error {
		pool := s.Pool()
		switch sub {
		case "list":
			items, err := conversions.List(ctx, pool, *status, *limit)
			if err != nil {
				return err
			}
			var b strings.Builder
			for _, it := range items {
				fmt.Fprintf(&b, "%d\t%s\t%s %s\tpixel %s\tattempts %d\tnext %s\t%s\n", it.ID, it.Status, it.EventName,
					it.EventID, it.PixelID, it.Attempts, it.NextAttemptAt.Format(time.RFC3339), it.LastError)
			}
			return emit(out, *asJSON, items, strings.TrimSuffix(b.String(), "\n"))
		case "retry":
			if len(positional) != 1 {
				return usageError{"want: mtk outbox retry <id>"}
			}
			id, err := strconv.ParseInt(positional[0], 10, 64)
			if err != nil {
				return usageError{"the id is a number (see mtk outbox list)"}
			}
			if err := conversions.Retry(ctx, pool, id, time.Now()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(out, "conversion %d is due again\n", id)
			return err
		default:
			st, err := conversions.Count(ctx, pool)
			if err != nil {
				return err
			}
			human := fmt.Sprintf("conversions: %d pending, %d sent (kept %s), %d dead (kept %s)\nfacts: %d pending\nevents: %d pending\njourneys: %d pending",
				st.Conversions[conversions.StatusPending], st.Conversions[conversions.StatusSent], days(conversions.SentRetention),
				st.Conversions[conversions.StatusDead], days(conversions.DeadRetention), st.Facts.Pending, st.Events.Pending,
				st.Journeys.Pending)
			return emit(out, *asJSON, st, human)
		}
	})
}

// days writes a retention in days.
func days(d time.Duration) string { return fmt.Sprintf("%d days", int(d/(24*time.Hour))) }
