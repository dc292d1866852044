// Package chfence ends the ClickHouse statements of an interrupted write before anyone decides
// what that write stored. ClickHouse goes on with an INSERT whose client died (killed, or gave
// up on a timeout), and on a busy server stores its rows seconds later: a recovery that looks
// the rows up meanwhile finds none and writes them again. So a writer names every insert of a
// try with a query id prefix it records (in PostgreSQL, with the write's bookkeeping) before it
// sends anything (NewPrefix, Named), and a recovery ends the recorded tries' statements (Fence)
// before it looks their rows up. The fact, event, journey and credit outboxes (ingest/outbox)
// and the sync batches (adsync) use it.
package chfence

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

// NewPrefix names a try of a write by what writes (e.g. "drain", "sync"): each insert it sends
// is the prefix, a dot and its number (Named).
func NewPrefix(what string) string { return "mtk-" + what + "-" + ids.Random(10) }

// Named is conn whose batches carry the query ids of the try named by prefix: prefix.1,
// prefix.2, ... in the order they are prepared.
func Named(conn driver.Conn, prefix string) driver.Conn {
	return &namedInserts{Conn: conn, prefix: prefix}
}

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

// Fence kills the statements of interrupted tries and waits until no server lists them in
// system.processes (current ClickHouse cancels an INSERT; 18.16 refuses, and the INSERT ends
// once written): then whatever they stored is visible, and nothing more of theirs will be.
//
// On a cluster, a dead writer's statement may run on any server, so the fence kills ON CLUSTER
// and reads every server's processes (the cluster table function). The statement's inserts into
// the shards run as queries of their own: current ClickHouse names their initial query, which
// the fence matches too; 18.16 gives them no link, but with insert_distributed_sync (mtk's
// cluster mode) the statement ends only once every shard has answered, so waiting for it is
// waiting for them.
type Fence struct {
	CH driver.Conn
	// Cluster is the ClickHouse cluster (schema.ValidClusterName), "" on one server.
	Cluster string
}

// cannotKill is ClickHouse's CANNOT_KILL: 18.16 refuses to kill an INSERT ("unkillable
// stages"), which then ends when written.
const cannotKill = 380

func unkillable(err error) bool {
	var e *clickhouse.Exception
	return errors.As(err, &e) && e.Code == cannotKill
}

// poll is how often the fence asks whether the statements still run.
const poll = 100 * time.Millisecond

// statements are the fence's SQL and arguments for the tries named by prefixes: the kill, and the
// count of statements still running.
func (f Fence) statements(prefixes []string) (kill, running string, args []any, err error) {
	processes, onCluster := "system.processes", ""
	if f.Cluster != "" {
		if !schema.ValidClusterName(f.Cluster) {
			return "", "", nil, fmt.Errorf("chfence: cluster name %q", f.Cluster)
		}
		processes, onCluster = "cluster('"+f.Cluster+"', system, processes)", " ON CLUSTER `"+f.Cluster+"`"
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

// End kills the statements of the tries named by prefixes (empty ones are tries recorded before
// query names: skipped) and returns once none runs on any server, or with ctx's error.
func (f Fence) End(ctx context.Context, prefixes []string) error {
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
	if err := f.CH.Exec(ctx, kill, args...); err != nil && !unkillable(err) {
		return fmt.Errorf("chfence: kill the statements of an interrupted write: %w", err)
	}
	for {
		var n uint64
		if err := f.CH.QueryRow(ctx, running, args...).Scan(&n); err != nil {
			return fmt.Errorf("chfence: wait for the statements of an interrupted write: %w", err)
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("chfence: the statements of an interrupted write still run: %w", ctx.Err())
		case <-time.After(poll):
		}
	}
}
