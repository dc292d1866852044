package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"mtk/benchmarks/internal/pgcost"
)

// What the floor run counts besides latency, so that mtk's cost over the same statement can be
// told apart on a loaded machine (issue 41: wall-clock ratios wander with the load, counts do
// not): this process's CPU per request on each path (client, server and driver together: the
// other paths are idle meanwhile), mtk's own Server-Timing (the ClickHouse statements' time and
// the server's whole handling), and the PostgreSQL round trips of its server per request.

// floorCost is what one tile's requests on one path cost this process.
type floorCost struct {
	cpu time.Duration
	n   int
}

// perRequest is the mean CPU per request, in ms.
func (c floorCost) perRequest() float64 {
	if c.n == 0 {
		return 0
	}
	return float64(c.cpu) / float64(c.n) / float64(time.Millisecond)
}

// mtkTiming is Server-Timing's db and total of each of a tile's measured answers from mtk.
type mtkTiming struct{ db, total []time.Duration }

// add reads one answer's Server-Timing ("db;dur=1.23, total;dur=4.56, ...").
func (m *mtkTiming) add(resp *fasthttp.Response) {
	var db, total time.Duration
	for _, part := range strings.Split(string(resp.Header.Peek("Server-Timing")), ",") {
		name, dur, ok := strings.Cut(strings.TrimSpace(part), ";dur=")
		if !ok {
			continue
		}
		ms, err := strconv.ParseFloat(dur, 64)
		if err != nil {
			continue
		}
		switch d := time.Duration(ms * float64(time.Millisecond)); name {
		case "db":
			db = d
		case "total":
			total = d
		}
	}
	m.db, m.total = append(m.db, db), append(m.total, total)
}

// p50 is the median of ds, in ms.
func p50(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

// costMarkdown prints, per tile, where mtk's time goes against the HTTP reader's for the same
// statement (path reader), and every path's CPU per request.
func costMarkdown(ts []*floorTile, paths []floorPath, reader int, pg *pgcost.Counter, pgBase int64) {
	requests := 0
	for _, t := range ts {
		requests += t.cost[pathMTK].n
	}
	fmt.Printf("\nwhere mtk's time goes, p50 ms: mtk at the client; its Server-Timing total (handling, from the body read to the encoded answer) and db (its statements, sent, run and decoded); the HTTP reader alone on the same statement\n\n")
	fmt.Printf("| tile | mtk | server total | db | HTTP reader | hop (mtk − total) | handler (total − db) | db − reader |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, t := range ts {
		mtk, total, db, rd := t.lat[pathMTK].percentile(50), p50(t.timing.total), p50(t.timing.db), t.lat[reader].percentile(50)
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", t.name, mtk, total, db, rd, mtk-total, total-db, db-rd)
	}
	fmt.Printf("\nthis process's CPU per request, ms (client, server and driver; the other paths idle meanwhile)\n\n| tile |")
	for _, p := range paths {
		fmt.Printf(" %s |", p.name)
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("--:|", len(paths)))
	for _, t := range ts {
		fmt.Printf("| %s |", t.name)
		for i := range paths {
			fmt.Printf(" %.2f |", t.cost[i].perRequest())
		}
		fmt.Println()
	}
	if requests > 0 {
		fmt.Printf("\nmtk's server: %.2f PostgreSQL round trips per request (%d over %d requests)\n",
			float64(pg.Trips()-pgBase)/float64(requests), pg.Trips()-pgBase, requests)
	}
}
