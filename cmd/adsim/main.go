// Command adsim serves simulated alpha_ads, beta_ads and gamma_ads APIs on loopback, for mtk's
// tests and demo. It is a test peer, not part of the product; the APIs are described in
// internal/adsim/README.md.
//
//	adsim [-listen 127.0.0.1:18900] [-seed 1] [-accounts-per-network 2] [-days 90]
//	      [-quota-per-minute 0] [-restate-after 6h] [-fake-clock [-fake-start RFC3339]]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"mtk/internal/adsim"
	"mtk/internal/clock"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "adsim:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. Its first line of output is the address it serves on.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("adsim", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:18900", "loopback address to serve on")
	seed := fs.Int64("seed", 1, "seed of the simulated world")
	accounts := fs.Int("accounts-per-network", 2, "ad accounts per network")
	days := fs.Int("days", 90, "days of history before the present")
	quota := fs.Int("quota-per-minute", 0, "API requests per access token per minute (0: no quota)")
	restate := fs.Duration("restate-after", 6*time.Hour, "how long after a day ends its numbers become final")
	fake := fs.Bool("fake-clock", false, "run on a fake clock, set and moved with POST /_admin/clock")
	fakeStart := fs.String("fake-start", "", "with -fake-clock, its first time (RFC 3339; default: now)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *days < 1 || *accounts < 1 {
		return fmt.Errorf("-days and -accounts-per-network must be at least 1")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", *listen, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-listen %q: the simulator serves on loopback only", *listen)
	}
	var clk clock.Clock = clock.Real{}
	if *fake {
		t := time.Now()
		if *fakeStart != "" {
			if t, err = time.Parse(time.RFC3339, *fakeStart); err != nil {
				return fmt.Errorf("-fake-start: %w", err)
			}
		}
		clk = clock.NewFake(t)
	}
	sim, err := adsim.New(adsim.Config{Seed: *seed, AccountsPerNetwork: *accounts, Days: *days, Clock: clk,
		QuotaPerMinute: *quota, RestateAfter: *restate})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(out, "adsim: serving on %s (seed %d, %d days, fake clock %v, now %s)\n",
		base, *seed, *days, *fake, clk.Now().UTC().Format(time.RFC3339))
	for _, a := range sim.Accounts() {
		fmt.Fprintf(out, "  %-9s %-22s %s %-17s token %s  %s%s\n", a.Network, a.DisplayID, a.Currency, a.TimeZone, a.AccessToken, base, a.BasePath)
	}
	fmt.Fprintf(out, "  admin: %s/_admin/accounts, /_admin/truth, /_admin/faults, /_admin/quota, /_admin/clock, /_admin/capi/events\n", base)
	srv := &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shut)
}
