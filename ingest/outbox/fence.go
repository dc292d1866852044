package outbox

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/internal/ids"
	"mtk/schema"
)

// newQueryPrefix names a try of a batch: each insert it sends is the prefix, a dot and its
// number (namedInserts). It is recorded with the batch's attempts before the first insert.
func newQueryPrefix() string { return "mtk-drain-" + ids.Random(10) }

// namedInserts is a ClickHouse connection whose batches carry the query ids of one try: prefix.1,
// prefix.2, ... in the order they are prepared.
type namedInserts struct {
	driver.Conn
	prefix string
	n      int
}

func (c *namedInserts) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	c.n++
	ctx = clickhouse.Context(ctx, clickhouse.WithQueryID(c.prefix+"."+strconv.Itoa(c.n)))
	return c.Conn.PrepareBatch(ctx, query, opts...)
}

// fence ends the statements of interrupted tries before a Drainer decides what they stored:
// ClickHouse goes on with an INSERT whose client died (or gave up), and may store its rows after
// another Drainer has looked for them. It kills them (current ClickHouse cancels an INSERT; 18.16
// refuses, and the INSERT ends once written) and waits until no server lists them in
// system.processes: then whatever they stored is visible, and nothing more of theirs will be.
//
// On a cluster, a dead worker's statement may run on any server, so the fence kills ON CLUSTER
// and reads every server's processes (the cluster table function). The statement's inserts into
// the shards run as queries of their own: current ClickHouse names their initial query, which
// the fence matches too; 18.16 gives them no link, but with insert_distributed_sync (mtk's
// cluster mode) the statement ends only once every shard has answered, so waiting for it is
// waiting for them.
type fence struct {
	ch driver.Conn
	// cluster is the ClickHouse cluster (schema.ValidClusterName), "" on one server.
	cluster string
}

// cannotKill is ClickHouse's CANNOT_KILL: 18.16 refuses to kill an INSERT ("unkillable
// stages"), which then ends when written.
const cannotKill = 380

func unkillable(err error) bool {
	var e *clickhouse.Exception
	return errors.As(err, &e) && e.Code == cannotKill
}

// fencePoll is how often the fence asks whether the statements still run.
const fencePoll = 100 * time.Millisecond

// statements are the fence's SQL and arguments for the tries named by prefixes: the kill, and the
// count of statements still running.
func (f fence) statements(prefixes []string) (kill, running string, args []any, err error) {
	processes, onCluster := "system.processes", ""
	if f.cluster != "" {
		if !schema.ValidClusterName(f.cluster) {
			return "", "", nil, fmt.Errorf("outbox: cluster name %q", f.cluster)
		}
		processes, onCluster = "cluster('"+f.cluster+"', system, processes)", " ON CLUSTER `"+f.cluster+"`"
	}
	match := make([]string, len(prefixes))
	for i, p := range prefixes {
		match[i] = "startsWith(query_id, ?) OR startsWith(initial_query_id, ?)"
		args = append(args, p+".", p+".")
	}
	where := strings.Join(match, " OR ")
	return "KILL QUERY" + onCluster + " WHERE " + where + " ASYNC",
		"SELECT count() FROM " + processes + " WHERE " + where, args, nil
}

// end kills the statements of the tries named by prefixes (empty ones are tries of before query
// names: skipped) and returns once none runs on any server, or with ctx's error.
func (f fence) end(ctx context.Context, prefixes []string) error {
	var named []string
	for _, p := range prefixes {
		if p != "" {
			named = append(named, p)
		}
	}
	if len(named) == 0 {
		return nil
	}
	kill, running, args, err := f.statements(named)
	if err != nil {
		return err
	}
	if err := f.ch.Exec(ctx, kill, args...); err != nil && !unkillable(err) {
		return fmt.Errorf("outbox: kill the statements of an interrupted attempt: %w", err)
	}
	for {
		var n uint64
		if err := f.ch.QueryRow(ctx, running, args...).Scan(&n); err != nil {
			return fmt.Errorf("outbox: wait for the statements of an interrupted attempt: %w", err)
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("outbox: the statements of an interrupted attempt still run: %w", ctx.Err())
		case <-time.After(fencePoll):
		}
	}
}
