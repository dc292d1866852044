// Command channels shows one demo month by utm_source under every attribution model with both
// touch sets (issue 39's closing note): the traffic view by utm_source over the demo's last 30
// days, one column per model and touch set, rows the utm_source values, the null row and the
// total, each cell the revenue and the order count. It checks what the contract promises
// (CONTRACT "Query: views, cross-channel attribution and identity"): every column's rows add up
// to its traffic total, which is the same under every model; the ad view's campaign rows add up
// to its total under every model. It also times each column's traffic query against reported's
// (the answers' Server-Timing db;dur, median of -runs, the answer cache off).
//
// Against a server started like `make run` (the demo seeded, its keys from `mtk seed demo --env`):
//
//	eval "$(bin/mtk seed demo --env)"; go run ./benchmarks/channels -url http://127.0.0.1:8080
//
// Without -url it makes its own, as make run does, over databases of its own (mtk_bench_channels
// on the servers of MTK_POSTGRES_URL and MTK_CLICKHOUSE_URL): bin/adsim, bin/mtk migrate,
// bin/mtk seed demo, bin/mtk serve (the answer cache off), waiting for the credit worker to catch
// up before it asks. It exits 1 when a check fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	url := flag.String("url", "", "a server started like make run (empty: start one over fresh databases)")
	key := flag.String("key", os.Getenv("MTK_DEMO_KEY"), "a data:read key of the demo (with -url)")
	project := flag.String("project", os.Getenv("MTK_DEMO_PROJECT"), "the demo project (with -url)")
	runs := flag.Int("runs", 5, "times each traffic query is asked for its median db time")
	bin := flag.String("bin", "bin", "where mtk and adsim are (make build)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *url, *key, *project, *bin, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "channels:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url, key, project, bin string, runs int) error {
	if url == "" {
		s, err := startDemo(ctx, bin)
		if err != nil {
			return err
		}
		defer s.stop()
		url, key, project = s.url, s.key, s.project
	} else if key == "" || project == "" {
		return fmt.Errorf("-url needs -key and -project (eval \"$(bin/mtk seed demo --env)\" sets them)")
	}
	c := &demoClient{url: url, key: key, project: project}
	m, err := measure(ctx, c, runs)
	if err != nil {
		return err
	}
	m.print(os.Stdout)
	if len(m.failures) > 0 {
		return fmt.Errorf("%d checks failed", len(m.failures))
	}
	return nil
}
