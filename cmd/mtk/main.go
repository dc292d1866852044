// Command mtk is the ad metrics, tracking and platform API: one binary with subcommands for the
// server, migrations, seeding and administration.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	_ "time/tzdata" // IANA zones inside the binary: projects' time zones work on any machine

	"mtk/internal/apperr"
)

const usage = `mtk: ad metrics, tracking and platform API

Usage:
  mtk serve [--role all|api|worker]   run the HTTP API and the background work (syncs, drains,
                                jobs), or one of them (migrates first)
  mtk migrate [--cluster NAME]  apply PostgreSQL and ClickHouse migrations (ClickHouse ON CLUSTER NAME)
  mtk seed demo [--json]        create the demo workspace, project, connections, containers and keys
  mtk workspace create --name N [--tier default|growth|enterprise] [--json]
  mtk user create --email E --password P [--name N] [--workspace W] [--role owner|admin|member] [--json]
  mtk user password --email E --password P [--json]   the user's earlier login tokens stop working
  mtk key create --workspace W --name N --scopes s1,s2 [--expires never|30d|90d|1y|RFC3339] [--json]
  mtk key list --workspace W [--json]
  mtk key revoke <key id> [--json]
  mtk oauth-client create --name N --redirect-uri U [--redirect-uri U2] --scopes s1,s2 [--public] [--json]
  mtk oauth-client list [--json]
  mtk oauth-client revoke <client id> [--json]   the client's keys stop working too
  mtk project create --workspace W --name N --currency BRL --timezone America/Sao_Paulo [--json]
  mtk connection create --project P --kind alpha_ads|beta_ads|gamma_ads|custom --name N [--source-id ID] [--json]
  mtk container create --project P --domain D [--version 2|3] [--alias A] [--allowed-hosts a,b] [--json]
  mtk container show <container id> [--json]
  mtk container verify <container id> [--domain D]
  mtk container delete <container id>
  mtk sync now --connection ID | --all          sync now (full the first time, else incremental)
  mtk sync backfill --connection ID --days N    re-read N days up to today
  mtk outbox list [--status pending|sent|dead] [--limit N] [--json]
  mtk outbox retry <id>         make a dead or pending conversion due now
  mtk outbox stats [--json]     counts of the conversion, fact, event and journey outboxes
  mtk backfill business [--batch N] [--json]   write the business facts of the orders and events
                                stored before them (idempotent; the business-backfill job does it too)
  mtk backfill journeys [--redo]  queue the orders and touches stored before attribution models
  mtk backfill pairs [--json]   write the business facts stored before the pair rollups into them
                                (restartable; run it once every replica runs this version)
  mtk bench --body FILE | --queries DIR [--url U] [--key K] [--concurrency 1,8,32] [--rate 50,200]
            [--max-inflight N] [--duration 10s] [--warmup 2s] [--cache on|off|both] [--json] [--compare FILE.json]
                                benchmark query bodies against a server (see docs/benchmarks.md)

Configuration comes from the environment (MTK_LISTEN, MTK_CLICKHOUSE_URL, MTK_CLICKHOUSE_CLUSTER,
MTK_POSTGRES_URL, MTK_JWT_SECRET, MTK_BASE_URL, MTK_RATE_LIMITS, MTK_METRICS, MTK_DATA); see docs/operations.md.
`

// command runs one subcommand with its arguments, writing results to out.
type command func(ctx context.Context, args []string, out io.Writer) error

var commands = map[string]command{
	"serve":        runServe,
	"migrate":      runMigrate,
	"seed":         runSeed,
	"workspace":    runWorkspace,
	"user":         runUser,
	"key":          runKey,
	"oauth-client": runOAuthClient,
	"project":      runProject,
	"connection":   runConnection,
	"container":    runContainer,
	"sync":         runSync,
	"outbox":       runOutbox,
	"bench":        runBench,
	"backfill":     runBackfill,
}

// renamed are the old spellings of commands, still run after a notice on stderr because scripts
// may call them: the first two words of a command line and the words that replace them.
var renamed = map[[2]string][]string{
	{"journeys", "backfill"}: {"backfill", "journeys"},
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(out, usage)
		return 0
	}
	if len(args) >= 2 {
		if now, ok := renamed[[2]string{args[0], args[1]}]; ok {
			fmt.Fprintf(errOut, "mtk: \"mtk %s %s\" is deprecated; use \"mtk %s\"\n", args[0], args[1], strings.Join(now, " "))
			args = append(slices.Clone(now), args[2:]...)
		}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(errOut, "mtk: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	err := cmd(ctx, args[1:], out)
	if err == nil {
		return 0
	}
	var help helpRequest
	if errors.As(err, &help) {
		name := help.name
		if name == "" {
			name = args[0]
		}
		fmt.Fprint(out, usageOf("mtk "+name)+help.flags)
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(errOut, "mtk %s: %s\n", args[0], ue.msg)
		return 2
	}
	var stopped benchStopped
	if errors.As(err, &stopped) {
		fmt.Fprintf(errOut, "mtk %s: %s\n", args[0], stopped)
		return 2
	}
	if e, ok := apperr.As(err); ok {
		fmt.Fprintf(errOut, "mtk %s: %s\n", args[0], e.Message)
		for _, d := range e.Shown() {
			fmt.Fprintf(errOut, "  %s\n", d)
		}
		return 1
	}
	fmt.Fprintf(errOut, "mtk %s: %s\n", args[0], strings.TrimSpace(err.Error()))
	return 1
}
