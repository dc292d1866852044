package main

import (
	"context"
	"log"
	"slices"
	"time"
)

// paths are the three ways a query is sent: over HTTP, its compiled SQL straight to ClickHouse
// (the floor), and planned on facts_raw.
type paths struct {
	http       *httpPath
	floor, raw *directPath
}

// measure fills the table: every workload at every concurrency, on each path. A cell's duration
// and request bound are split into rounds in which the paths take turns, so that a burst of
// other work on the shared machine falls on all of them rather than on one.
func measure(ctx context.Context, f flags, ws []workload, p paths) ([]result, error) {
	b := bounds{Duration: f.duration / time.Duration(f.rounds), Requests: f.maxRequests / f.rounds}
	if f.maxRequests > 0 && b.Requests == 0 {
		b.Requests = 1
	}
	var results []result
	for _, clients := range f.clients {
		withRaw := slices.Contains(f.rawClients, clients)
		for _, w := range ws {
			if f.only != nil && !slices.Contains(f.only, w.Name) {
				continue
			}
			var h, fl, raw cell
			for range f.rounds {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				h = h.merge(load(ctx, clients, w, b, p.http.send))
				fl = fl.merge(load(ctx, clients, w, b, p.floor.send))
				if withRaw {
					raw = raw.merge(load(ctx, clients, w, b, p.raw.send))
				}
			}
			r := result{Query: w.Name, Clients: clients, HTTP: summarise(h), Floor: summarise(fl), LoadAvg: loadAvg()}
			r.OverheadP50 = round(r.HTTP.P50-r.Floor.P50, 2)
			if withRaw {
				r.Raw = summarise(raw)
				if r.Floor.P50 > 0 {
					r.SpeedUp = round(r.Raw.P50/r.Floor.P50, 1)
				}
			}
			log.Printf("%-18s %2d clients: p50 %.2f p99 %.2f ms, %.0f req/s; floor p50 %.2f ms", w.Name, clients,
				r.HTTP.P50, r.HTTP.P99, r.HTTP.RPS, r.Floor.P50)
			results = append(results, r)
		}
	}
	return results, nil
}
