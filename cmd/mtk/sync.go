package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"mtk/adsync"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/wire"
	"mtk/platform"
)

// newSyncer is the syncer over the open stores (wire.NewSyncer).
func newSyncer(cfg config.Config, st stores, clk clock.Clock) *adsync.Syncer {
	return wire.NewSyncer(platform.New(st.pg, clk), st.ch, cfg.ClickHouseCluster, clk)
}

// runSync: mtk sync now [--connection ID | --all]; mtk sync backfill --connection ID --days N.
func runSync(ctx context.Context, args []string, out io.Writer) error {
	what, rest, err := subcommand(args, "now", "backfill")
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("sync "+what, flag.ContinueOnError)
	connID := fs.String("connection", "", "the connection to sync")
	all := flagsOf(fs, what, "now").Bool("all", false, "sync every active or error ad network connection")
	days := flagsOf(fs, what, "backfill").Int("days", 0, "how many days up to today")
	if _, err := parseFlags(fs, rest); err != nil {
		return err
	}
	opt := adsync.Options{}
	switch {
	case what == "backfill" && (*connID == "" || *days < 1):
		return usageError{"backfill takes --connection ID and --days N (N >= 1)"}
	case what == "backfill":
		opt.Backfill, opt.Days = true, *days
	case (*connID == "") == !*all:
		return usageError{"now takes --connection ID or --all"}
	}
	return withStores(ctx, func(cfg config.Config, st stores) error {
		syncer := newSyncer(cfg, st, clock.Real{})
		ids := []string{*connID}
		if *all {
			if ids, err = syncer.SyncableIDs(ctx); err != nil {
				return err
			}
		}
		var failed []string
		for _, id := range ids {
			if err := syncOne(ctx, syncer, id, opt, out); err != nil {
				fmt.Fprintf(out, "%s: %v\n", id, err)
				failed = append(failed, id)
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("%d of %d syncs failed: %s", len(failed), len(ids), strings.Join(failed, ", "))
		}
		return nil
	})
}

// syncOne runs one sync, showing progress: a counter rewritten in place on a terminal, plain
// lines otherwise.
func syncOne(ctx context.Context, syncer *adsync.Syncer, id string, opt adsync.Options, out io.Writer) error {
	c, err := syncer.Connections.Connection(ctx, id)
	if err != nil {
		return err
	}
	tty := isTerminal(out)
	opt.Progress = func(p adsync.Progress) {
		if tty {
			fmt.Fprintf(out, "\r%s %s: %s %d/%d   ", c.ID, c.Kind, p.Step, p.Done, p.Total)
		} else if p.Done == p.Total {
			fmt.Fprintf(out, "%s %s: %s %d/%d\n", c.ID, c.Kind, p.Step, p.Done, p.Total)
		}
	}
	res, err := syncer.Run(ctx, c, opt)
	if tty {
		fmt.Fprint(out, "\r")
	}
	if errors.Is(err, adsync.ErrNotSyncable) {
		return fmt.Errorf("%w (status %s, kind %s)", err, c.Status, c.Kind)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s %s: %s sync %s wrote %d rows in %s\n", c.ID, c.Kind, res.SyncType, res.RunID, res.Rows, res.Took.Round(1e6))
	return err
}

// isTerminal tells whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
