package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// logged tags insert n of this run for system.query_log: the server then records its duration
// and the CPU it spent (its views' inserts included), which the run's wall time cannot tell
// from the client's work and from other processes waiting on the same cores.
func logged(ctx context.Context, run string, n int) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithQueryID(queryID(run, n)),
		clickhouse.WithSettings(clickhouse.Settings{"log_queries": 1}))
}

func queryID(run string, n int) string { return run + "." + strconv.Itoa(n) }

// serverSide prints what ClickHouse says the run's inserts cost it, summed over them: wall time,
// CPU (user, system), time spent waiting for a core (other work on the machine), and the parts
// each credit table was written in (one per partition an insert spans, per table).
func serverSide(ctx context.Context, ch driver.Conn, run string, inserts int) error {
	if err := ch.Exec(ctx, "SYSTEM FLUSH LOGS"); err != nil {
		return err
	}
	ids := make([]any, inserts)
	for i := range ids {
		ids[i] = queryID(run, i)
	}
	var n, dur, user, sys, wait uint64
	err := ch.QueryRow(ctx, `SELECT count(), sum(query_duration_ms),
		sum(arraySum(arrayFilter((v, k) -> k = 'UserTimeMicroseconds', ProfileEvents.Values, ProfileEvents.Names))),
		sum(arraySum(arrayFilter((v, k) -> k = 'SystemTimeMicroseconds', ProfileEvents.Values, ProfileEvents.Names))),
		sum(arraySum(arrayFilter((v, k) -> k = 'OSCPUWaitMicroseconds', ProfileEvents.Values, ProfileEvents.Names)))
		FROM system.query_log WHERE type = 2 AND query_id IN ?`, clickhouse.GroupSet{Value: ids}).Scan(&n, &dur, &user, &sys, &wait)
	if err != nil {
		return err
	}
	fmt.Printf("  server: %d inserts logged, %.2f s, CPU %.2f s user + %.2f s system, %.2f s waiting for a core\n",
		n, float64(dur)/1e3, float64(user)/1e6, float64(sys)/1e6, float64(wait)/1e6)
	rows, err := ch.Query(ctx, `SELECT table, count(), uniqExact(partition) FROM system.parts
		WHERE database = currentDatabase() AND level = 0 AND startsWith(table, 'credits_') GROUP BY table ORDER BY table`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var table string
		var parts, partitions uint64
		if err := rows.Scan(&table, &parts, &partitions); err != nil {
			return err
		}
		fmt.Printf("  %s: %d parts written over %d partitions\n", table, parts, partitions)
	}
	return rows.Err()
}
