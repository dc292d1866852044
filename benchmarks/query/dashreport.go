package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// dashReport is the JSON of the dashboard run.
type dashReport struct {
	Command   string       `json:"command"`
	Started   string       `json:"started"`
	Seconds   float64      `json:"seconds"`
	Machine   machine      `json:"machine"`
	Settings  dashSettings `json:"settings"`
	Data      dataState    `json:"data"`
	Synced    string       `json:"synced_connection"`
	Tiles     []tileReport `json:"tiles"`
	Runs      []runReport  `json:"runs"`
	Targets   []dashTarget `json:"targets"`
	LoadStart float64      `json:"loadavg_1m_start"`
	LoadEnd   float64      `json:"loadavg_1m_end"`
	Clock     clockReport  `json:"clock"`
	Warnings  []string     `json:"warnings,omitempty"`
}

type dashSettings struct {
	Rows        int     `json:"rows"`
	Days        int     `json:"days"`
	Seed        int64   `json:"seed"`
	Projects    int     `json:"projects"`
	Workspaces  int     `json:"workspaces"`
	Viewers     int     `json:"viewers"`
	Parallel    int     `json:"page_parallel"`
	Zipf        float64 `json:"zipf_s"`
	Ranges      []int   `json:"range_days"`
	ThinkS      float64 `json:"think_s"`
	RunS        float64 `json:"run_s"`
	WarmupS     float64 `json:"warmup_s"`
	EventsPerS  float64 `json:"events_per_s"`
	OrdersPerS  float64 `json:"orders_per_s"`
	SyncEveryS  float64 `json:"sync_every_s"`
	VerifyEvery int     `json:"verify_one_hit_in"`
}

// clockReport says where the run's clock stood.
type clockReport struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Today string `json:"today"`
}

// tileReport is one tile of the page as the check pass saw it (Store 01, 30 days), with the
// table and statement the floor compiled for it.
type tileReport struct {
	Name  string `json:"name"`
	About string `json:"about"`
	Body  string `json:"body"`
	Rows  int    `json:"rows"`
	Table string `json:"table,omitempty"`
	SQL   string `json:"sql,omitempty"`
}

// runReport is one run: a server configuration (or the floor) under the viewers.
type runReport struct {
	Name     string  `json:"name"`
	Path     string  `json:"path"` // http or floor
	Cache    string  `json:"cache,omitempty"`
	Grain    string  `json:"grain,omitempty"`
	Viewers  int     `json:"viewers"`
	Parallel int     `json:"page_parallel"`
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
	RPS      float64 `json:"req_per_s"`
	P50      float64 `json:"p50_ms"`
	P95      float64 `json:"p95_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	Pages    int     `json:"pages"`
	PageP50  float64 `json:"page_p50_ms"`
	PageP99  float64 `json:"page_p99_ms"`
	Hits     int     `json:"hits"`
	HitRatio float64 `json:"hit_ratio"`
	// CPU is this process's CPU per request in ms: viewers, server, writers and driver.
	CPU       float64      `json:"go_cpu_ms_per_req"`
	PerTile   []tileStats  `json:"per_tile"`
	Fresh     *freshness   `json:"freshness,omitempty"`
	Writes    writeStats   `json:"writes"`
	Syncs     []syncRecord `json:"syncs"`
	Moves     int64        `json:"version_moves"`
	MovedRows int64        `json:"versions_moved"`
	MovedProj int64        `json:"projects_moved"`
	Answers   *cacheStats  `json:"answer_cache,omitempty"`
	LoadAvg   float64      `json:"loadavg_1m"`
}

// tileStats are one tile's requests in a run.
type tileStats struct {
	Name     string  `json:"name"`
	Requests int     `json:"requests"`
	HitRatio float64 `json:"hit_ratio"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
}

// cacheStats are the answer cache's counts at a run's end (the server's whole life: the warm-up
// included).
type cacheStats struct {
	Hits      int64 `json:"hits"`
	Misses    int64 `json:"misses"`
	Evictions int64 `json:"evictions"`
	Bytes     int64 `json:"bytes"`
	Entries   int   `json:"entries"`
}

// summariseRun fills a run's figures from what the viewers did.
func summariseRun(r *runReport, l viewerLoad) {
	r.Requests, r.Errors, r.FirstErr, r.Hits = l.Requests, l.Errors, l.FirstErr, l.Hits
	r.RPS = round(l.rate(), 1)
	r.P50, r.P95, r.P99, r.Max = pct(l.latencies, 50), pct(l.latencies, 95), pct(l.latencies, 99), pct(l.latencies, 100)
	r.Pages, r.PageP50, r.PageP99 = len(l.pages), pct(l.pages, 50), pct(l.pages, 99)
	if l.Requests > 0 {
		r.HitRatio = round(float64(l.Hits)/float64(l.Requests), 4)
		r.CPU = round(ms(l.CPU)/float64(l.Requests), 3)
	}
	for i, tl := range tiles {
		var lat []time.Duration
		hits := 0
		for _, s := range l.samples {
			if s.tile == i {
				lat = append(lat, s.latency)
				if s.hit {
					hits++
				}
			}
		}
		slices.Sort(lat)
		ts := tileStats{Name: tl.Name, Requests: len(lat), P50: pct(lat, 50), P99: pct(lat, 99)}
		if len(lat) > 0 {
			ts.HitRatio = round(float64(hits)/float64(len(lat)), 4)
		}
		r.PerTile = append(r.PerTile, ts)
	}
}

// dashTarget is one of the targets: Value compared with Limit by Cmp.
type dashTarget struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Cmp   string  `json:"cmp"`
	Limit float64 `json:"limit"`
	Holds bool    `json:"holds"`
	// Measured is false when a run it needs is missing or failed.
	Measured bool   `json:"measured"`
	Where    string `json:"where"`
}

// dashTargets evaluates the targets: the cache-on run (day grain) has at least 10 times
// the cache-off run's req/s at a p99 of at most a fifth of its p99, with no stale answer in any
// cache-on run; the uncached path's p50 at one client is at most 10 % over the floor's.
func dashTargets(runs []runReport) []dashTarget {
	find := func(name string) *runReport {
		for i := range runs {
			if runs[i].Name == name && runs[i].Requests > 0 {
				return &runs[i]
			}
		}
		return nil
	}
	on, off := find(runCacheDay), find(runCacheOff)
	off1, floor1 := find(runCacheOff1), find(runFloor1)
	speed := dashTarget{Name: "req/s, cache on (day) ÷ cache off", Cmp: "≥", Limit: 10, Where: runCacheDay + " / " + runCacheOff}
	tail := dashTarget{Name: "p99, cache on (day) ÷ cache off", Cmp: "≤", Limit: 0.2, Where: runCacheDay + " / " + runCacheOff}
	if on != nil && off != nil && off.RPS > 0 && off.P99 > 0 {
		speed.Value, speed.Measured = round(on.RPS/off.RPS, 2), true
		tail.Value, tail.Measured = round(on.P99/off.P99, 3), true
	}
	stale := dashTarget{Name: "stale answers (cache-on runs)", Cmp: "=", Limit: 0}
	var compared int64
	for _, r := range runs {
		if r.Fresh != nil {
			stale.Value += float64(r.Fresh.Stale)
			compared += r.Fresh.Compared
		}
	}
	stale.Measured = compared > 0
	stale.Where = fmt.Sprintf("%d compared", compared)
	overhead := dashTarget{Name: "uncached overhead over the floor at p50, 1 client (%)", Cmp: "≤", Limit: 10,
		Where: runCacheOff1 + " vs " + runFloor1}
	if off1 != nil && floor1 != nil && floor1.P50 > 0 {
		overhead.Value, overhead.Measured = round(100*(off1.P50-floor1.P50)/floor1.P50, 1), true
		overhead.Where += fmt.Sprintf(" (%.2f vs %.2f ms)", off1.P50, floor1.P50)
	}
	out := []dashTarget{speed, tail, stale, overhead}
	for i := range out {
		t := &out[i]
		switch t.Cmp {
		case "≥":
			t.Holds = t.Value >= t.Limit
		case "≤":
			t.Holds = t.Value <= t.Limit
		default:
			t.Holds = t.Value == t.Limit
		}
		t.Holds = t.Holds && t.Measured
	}
	return out
}

// dashMarkdown prints the run's tables and targets.
func dashMarkdown(w io.Writer, r dashReport) {
	s := r.Settings
	fmt.Fprintf(w, "\n%d generated raw rows over %d projects (%d workspaces), %d CPUs, ClickHouse %s; today %s (clock %s → %s)\n",
		r.Data.RawRows, s.Projects, s.Workspaces, r.Machine.CPUs, r.Machine.ClickHouse, r.Clock.Today, r.Clock.Start, r.Clock.End)
	fmt.Fprintf(w, "%d viewers × %d tiles in flight, Zipf s=%.2f, ranges %v days ending yesterday, %.0f s per run after %.0f s warm-up; "+
		"writes %.0f events/s and %.0f orders/s, a sync every %.0f s; load average %.2f → %.2f\n\n",
		s.Viewers, s.Parallel, s.Zipf, s.Ranges, s.RunS, s.WarmupS, s.EventsPerS, s.OrdersPerS, s.SyncEveryS, r.LoadStart, r.LoadEnd)
	fmt.Fprintln(w, "| run | viewers × in flight | req/s | p50 ms | p95 ms | p99 ms | pages/s | page p50 ms | page p99 ms | hit ratio | errors |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, x := range r.Runs {
		hit := "–"
		if x.Path == "http" {
			hit = fmt.Sprintf("%.1f %%", 100*x.HitRatio)
		}
		pages := 0.0
		if x.RPS > 0 && x.Requests > 0 {
			pages = x.RPS * float64(x.Pages) / float64(x.Requests)
		}
		fmt.Fprintf(w, "| %s | %d × %d | %.0f | %.2f | %.2f | %.2f | %.1f | %.1f | %.1f | %s | %d |\n", x.Name, x.Viewers, x.Parallel,
			x.RPS, x.P50, x.P95, x.P99, pages, x.PageP50, x.PageP99, hit, x.Errors)
	}
	fmt.Fprintln(w, "\nWrites during each run (warm-up included), and what they moved while it was measured:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| run | events ok | orders ok (late) | failed | syncs (rows, s) | version moves | days moved (projects) |")
	fmt.Fprintln(w, "|---|--:|--:|--:|---|--:|--:|")
	for _, x := range r.Runs {
		var syncs []string
		for _, sr := range x.Syncs {
			if sr.Error != "" {
				syncs = append(syncs, "error at "+fmt.Sprint(sr.At)+" s")
				continue
			}
			syncs = append(syncs, fmt.Sprintf("%d rows, %.1f s at %.0f s", sr.Rows, sr.TookS, sr.At))
		}
		if len(syncs) == 0 {
			syncs = []string{"none"}
		}
		fmt.Fprintf(w, "| %s | %d | %d (%d) | %d | %s | %d | %d (%d) |\n", x.Name, x.Writes.Events, x.Writes.Orders,
			x.Writes.LateOrders, x.Writes.EventsFailed+x.Writes.OrdersFailed, strings.Join(syncs, "; "), x.Moves, x.MovedRows, x.MovedProj)
	}
	fmt.Fprintln(w, "\nPer tile (hit ratio; p99 ms):")
	fmt.Fprintln(w)
	var http []runReport
	for _, x := range r.Runs {
		if x.Path == "http" && x.Viewers*x.Parallel > 1 {
			http = append(http, x)
		}
	}
	head, rule := "| tile | rows |", "|---|--:|"
	for _, x := range http {
		head += " " + x.Name + " |"
		rule += "--:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for i, tl := range r.Tiles {
		line := fmt.Sprintf("| %s | %d |", tl.Name, tl.Rows)
		for _, x := range http {
			if i < len(x.PerTile) {
				ts := x.PerTile[i]
				if x.Cache == "off" {
					line += fmt.Sprintf(" %.2f |", ts.P99)
				} else {
					line += fmt.Sprintf(" %.1f %%; %.2f |", 100*ts.HitRatio, ts.P99)
				}
			}
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\nAnswer cache at each cache-on run's end (its server's whole life: prefill, warm-up, run, checks):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| run | hits | misses | evictions | entries | MiB |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|")
	for _, x := range r.Runs {
		if a := x.Answers; a != nil {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f |\n", x.Name, a.Hits, a.Misses, a.Evictions, a.Entries, float64(a.Bytes)/(1<<20))
		}
	}
	fmt.Fprintln(w, "\nFreshness (cache hits read again at once with Cache-Control: no-cache):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| run | sampled | compared | stale | skipped (version moved) | moved, not yet heard | dropped (checker busy) | no ETag | errors |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, x := range r.Runs {
		if f := x.Fresh; f != nil {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", x.Name, f.Sampled, f.Compared, f.Stale, f.Skipped,
				f.Unheard, f.Dropped, f.NoETag, f.Errors)
		}
	}
	for _, x := range r.Runs {
		if f := x.Fresh; f != nil && f.First != "" {
			fmt.Fprintf(w, "\nFirst stale answer (%s): %s\n", x.Name, f.First)
		}
	}
	fmt.Fprintln(w)
	for _, t := range r.Targets {
		verdict := "holds"
		switch {
		case !t.Measured:
			fmt.Fprintf(w, "- %s: not measured in this run (%s)\n", t.Name, t.Where)
			continue
		case !t.Holds:
			verdict = "FAILS"
		}
		fmt.Fprintf(w, "- %s: %s %s %s (%s): %s\n", t.Name, trimFloat(t.Value), t.Cmp, trimFloat(t.Limit), t.Where, verdict)
	}
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "- warning: %s\n", x)
	}
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}
