package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
	"mtk/internal/chhttp"
	"mtk/internal/config"
	"mtk/internal/wire"
)

// The floor run's two driver paths for the engine's reads, timed on the server too: clickhouse-go's
// native protocol as mtk's pool is configured (LZ4) and mtk's HTTP reader (internal/chhttp: the
// Native format over ClickHouse's HTTP interface, decoded into Go values). Both send their
// statements with log_queries on, so that system.query_log's query_duration_ms tells whether
// a difference between them lies on the server or on the client.

// loggedPrefix starts the query ids of the floor run's logged native statements (the HTTP
// reader names its own: chhttp's "mtk-read-").
const loggedPrefix = "floor41-"

// logged is settings with log_queries on.
func logged(settings clickhouse.Settings) clickhouse.Settings {
	s := maps.Clone(settings)
	s["log_queries"] = 1
	return s
}

// sendLoggedNative sends a tile's statement through clickhouse-go with the engine's settings,
// logged under a query id of its own, and reads every row.
func sendLoggedNative(ctx context.Context, conn driver.Conn, t *floorTile, n int) error {
	ctx = clickhouse.Context(ctx, clickhouse.WithQueryID(fmt.Sprintf("%s%s-%d-%d", loggedPrefix, t.name, n, time.Now().UnixNano())))
	return sendNative(ctx, conn, t, logged(t.settings))
}

// sendReader sends a tile's statement, its values bound (engine.Bind), through the HTTP reader
// with the engine's settings, logged, and decodes every row.
func sendReader(ctx context.Context, c *chhttp.Client, t *floorTile) error {
	sql, err := engine.Bind(t.stmt)
	if err != nil {
		return err
	}
	rows, err := c.Query(ctx, sql, logged(t.settings))
	if err != nil {
		return err
	}
	n := 0
	for rows.Next() {
		n++
	}
	if n == 0 {
		return fmt.Errorf("no rows")
	}
	return nil
}

// serverTimes are, per tile and logged path ("native" or "reader"), the p50 and mean of
// query_duration_ms of the statements finished since start.
func serverTimes(ctx context.Context, conn driver.Conn, ts []*floorTile, since time.Time) (map[string]map[string][2]float64, error) {
	if err := conn.Exec(ctx, "SYSTEM FLUSH LOGS"); err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `SELECT query, startsWith(query_id, 'mtk-read-') AS reader,
		toFloat64(quantile(0.5)(query_duration_ms)), avg(query_duration_ms)
		FROM system.query_log
		WHERE type = 2 AND event_date >= toDate(?) AND event_time >= ?
			AND (startsWith(query_id, 'mtk-read-') OR startsWith(query_id, ?))
		GROUP BY query, reader`, since, since, loggedPrefix)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	bound := map[string]string{}
	for _, t := range ts {
		sql, err := engine.Bind(t.stmt)
		if err != nil {
			return nil, err
		}
		bound[strings.TrimSpace(sql)] = t.name
	}
	out := map[string]map[string][2]float64{}
	for rows.Next() {
		var (
			q         string
			reader    uint8
			p50, mean float64
		)
		if err := rows.Scan(&q, &reader, &p50, &mean); err != nil {
			return nil, err
		}
		tile, ok := bound[strings.TrimSpace(q)]
		if !ok {
			continue
		}
		path := "native"
		if reader == 1 {
			path = "reader"
		}
		if out[tile] == nil {
			out[tile] = map[string][2]float64{}
		}
		out[tile][path] = [2]float64{p50, mean}
	}
	return out, rows.Err()
}

// serverMarkdown prints serverTimes.
func serverMarkdown(ts []*floorTile, got map[string]map[string][2]float64) {
	fmt.Printf("\nsystem.query_log, query_duration_ms p50 (mean): native, logged | HTTP reader, logged\n\n")
	for _, t := range ts {
		n, r := got[t.name]["native"], got[t.name]["reader"]
		fmt.Printf("| %s | %.1f (%.2f) | %.1f (%.2f) |\n", t.name, n[0], n[1], r[0], r[1])
	}
}

// floorReader is the HTTP reader mtk's server reads through (wire.HTTPReader), on the run's
// database.
func floorReader(dsn, chHTTP string) (*chhttp.Client, error) {
	return wire.HTTPReader(config.Config{ClickHouseURL: dsn, ClickHouseHTTPURL: chHTTP})
}
