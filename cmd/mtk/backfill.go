package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"mtk/internal/config"
	"mtk/internal/wire"
)

// runBackfill: mtk backfill business|journeys|pairs writes what was stored before a family of
// rows existed.
func runBackfill(ctx context.Context, args []string, out io.Writer) error {
	sub, rest, err := subcommand(args, "business", "journeys", "pairs")
	if err != nil {
		return err
	}
	switch sub {
	case "journeys":
		return backfillJourneys(ctx, rest, out)
	case "pairs":
		return backfillPairs(ctx, rest, out)
	}
	return backfillBusiness(ctx, rest, out)
}

// backfillPairs: mtk backfill pairs [--json] writes the business rows stored before the pair
// rollups into them (wire.System.BackfillPairs); a rerun goes on where a killed run stopped, and
// a run with nothing left writes nothing.
func backfillPairs(ctx context.Context, rest []string, out io.Writer) error {
	fs := flag.NewFlagSet("backfill pairs", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the count as JSON")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	return withSystem(ctx, out, *asJSON, func(sys *wire.System) error {
		n, err := sys.BackfillPairs(ctx)
		if err != nil {
			return err
		}
		return emit(out, *asJSON, map[string]any{"projects": n}, fmt.Sprintf("pair rollups backfilled: %d projects", n))
	})
}

// backfillBusiness: mtk backfill business [--batch N] [--json] writes the business rows of the
// orders and events stored before the business facts existed (wire.System.BackfillBusiness),
// logging its progress to out; a rerun, or a run after the business-backfill job finished it,
// writes nothing.
func backfillBusiness(ctx context.Context, rest []string, out io.Writer) error {
	fs := flag.NewFlagSet("backfill business", flag.ContinueOnError)
	batch := fs.Int("batch", wire.BackfillBatch, "orders or events per step")
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	if *batch < 1 {
		return usageError{"--batch is at least 1"}
	}
	return withSystem(ctx, out, *asJSON, func(sys *wire.System) error {
		orders, events, err := sys.BackfillBusiness(ctx, *batch)
		if err != nil {
			return err
		}
		return emit(out, *asJSON, map[string]any{"orders": orders, "events": events},
			fmt.Sprintf("business facts backfilled: %d orders, %d events", orders, events))
	})
}

// withSystem runs fn with the system built over both stores, logging its progress to out unless
// quiet (--json: out holds the JSON answer only).
func withSystem(ctx context.Context, out io.Writer, quiet bool, fn func(*wire.System) error) error {
	return withStores(ctx, func(cfg config.Config, st stores) error {
		log := slog.New(slog.NewTextHandler(out, nil))
		if quiet {
			log = slog.New(slog.NewTextHandler(io.Discard, nil))
		}
		sys, err := wire.Build(cfg, st.pg, st.ch, wire.Options{Logger: log})
		if err != nil {
			return err
		}
		defer sys.Close()
		return fn(sys)
	})
}
