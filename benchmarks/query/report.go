package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stats summarise one cell.
type stats struct {
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
	RPS      float64 `json:"req_per_s"`
	P50      float64 `json:"p50_ms"`
	P95      float64 `json:"p95_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	// CPU is this process's CPU per request in ms (clients, server and driver).
	CPU float64 `json:"go_cpu_ms_per_req"`
}

func summarise(c cell) *stats {
	s := &stats{Requests: c.Requests, Errors: c.Errors, FirstErr: c.FirstErr, RPS: round(c.rate(), 1),
		P50: c.percentile(50), P95: c.percentile(95), P99: c.percentile(99), Max: c.percentile(100)}
	if c.Requests > 0 {
		s.CPU = round(ms(c.CPU)/float64(c.Requests), 3)
	}
	return s
}

// result is one row of the table: a workload at a concurrency over HTTP, straight to
// ClickHouse (floor) and on facts_raw.
type result struct {
	Query       string  `json:"query"`
	Clients     int     `json:"clients"`
	HTTP        *stats  `json:"http"`
	Floor       *stats  `json:"floor"`
	Raw         *stats  `json:"raw,omitempty"`
	OverheadP50 float64 `json:"overhead_p50_ms"`
	// SpeedUp is raw p50 over floor p50: what the rollup saves in ClickHouse.
	SpeedUp float64 `json:"rollup_speedup,omitempty"`
	// LoadAvg is the 1-minute load average when the row was measured (other work on the machine
	// shows there).
	LoadAvg float64 `json:"loadavg_1m"`
}

// target is one of the targets and whether this run meets it.
type target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Holds bool    `json:"holds"`
	Where string  `json:"where"`
}

// report is the JSON the benchmark writes.
type report struct {
	Command   string        `json:"command"`
	Started   string        `json:"started"`
	Seconds   float64       `json:"seconds"`
	Machine   machine       `json:"machine"`
	Settings  runSettings   `json:"settings"`
	Data      dataState     `json:"data"`
	Queries   []queryReport `json:"queries"`
	Results   []result      `json:"results"`
	Targets   []target      `json:"targets"`
	LoadStart float64       `json:"loadavg_1m_start"`
	LoadEnd   float64       `json:"loadavg_1m_end"`
}

type machine struct {
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	ClickHouse string `json:"clickhouse"`
}

type runSettings struct {
	Rows        int     `json:"rows"`
	Days        int     `json:"days"`
	Seed        int64   `json:"seed"`
	DurationS   float64 `json:"duration_s_per_cell"`
	MaxRequests int     `json:"max_requests_per_cell"`
	Rounds      int     `json:"rounds_per_cell"`
	Clients     []int   `json:"clients"`
	RawClients  []int   `json:"raw_clients"`
	Warmup      int     `json:"warmup_requests_per_query"`
}

type queryReport struct {
	Name     string `json:"name"`
	About    string `json:"about"`
	Body     string `json:"body"`
	Table    string `json:"table"`
	Rows     int    `json:"rows"`
	SQL      string `json:"sql"`
	RawTable string `json:"raw_table"`
}

// targets evaluates the targets: p99 at most 50 ms at 8 clients (every query and the
// mix), server overhead over the bare ClickHouse query at most 2 ms at p50 (one client, where
// the difference is the server's work and not queueing on the two cores), and the rollup at
// least 10 times faster than raw for 30 days daily (one client, in ClickHouse).
func evaluate(results []result) []target {
	p99 := target{Name: "p99 at 8 clients (ms)", Limit: 50}
	overhead := target{Name: "server overhead p50 at 1 client (ms)", Limit: 2}
	speedUp := target{Name: "rollup speed-up over raw, day_30d_campaign, 1 client", Limit: 10, Value: math.Inf(1)}
	for _, r := range results {
		if r.Clients == 8 && r.HTTP.P99 >= p99.Value {
			p99.Value, p99.Where = r.HTTP.P99, r.Query
		}
		if r.Clients == 1 && r.OverheadP50 >= overhead.Value {
			overhead.Value, overhead.Where = r.OverheadP50, r.Query
		}
		if r.Clients == 1 && r.Query == "day_30d_campaign" && r.Raw != nil {
			speedUp.Value, speedUp.Where = r.SpeedUp, r.Query
		}
	}
	p99.Holds = p99.Where != "" && p99.Value <= p99.Limit
	overhead.Holds = overhead.Where != "" && overhead.Value <= overhead.Limit
	speedUp.Holds = speedUp.Where != "" && speedUp.Value >= speedUp.Limit
	if speedUp.Where == "" {
		speedUp.Value = 0
	}
	return []target{p99, overhead, speedUp}
}

// markdown prints the table and the targets.
func markdown(w io.Writer, r report) {
	fmt.Fprintf(w, "\n%d raw rows, %d CPUs, ClickHouse %s; %.0f s per cell; load average %.2f → %.2f\n\n",
		r.Data.RawRows, r.Machine.CPUs, r.Machine.ClickHouse, r.Settings.DurationS, r.LoadStart, r.LoadEnd)
	fmt.Fprintln(w, "| query | clients | p50 ms | p95 ms | p99 ms | req/s | floor p50 ms | overhead p50 ms | raw p50 ms | rollup speed-up | errors |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, x := range r.Results {
		raw, speed := "–", "–"
		if x.Raw != nil {
			raw, speed = fmt.Sprintf("%.2f", x.Raw.P50), fmt.Sprintf("%.1f×", x.SpeedUp)
		}
		fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.2f | %.0f | %.2f | %.2f | %s | %s | %d |\n",
			x.Query, x.Clients, x.HTTP.P50, x.HTTP.P95, x.HTTP.P99, x.HTTP.RPS, x.Floor.P50, x.OverheadP50, raw, speed,
			x.HTTP.Errors+x.Floor.Errors+errorsOf(x.Raw))
	}
	fmt.Fprintln(w)
	for _, t := range r.Targets {
		verdict := "holds"
		switch {
		case t.Where == "":
			fmt.Fprintf(w, "- %s: not measured in this run\n", t.Name)
			continue
		case !t.Holds:
			verdict = "FAILS"
		}
		cmp := "≤"
		if strings.Contains(t.Name, "speed-up") {
			cmp = "≥"
		}
		fmt.Fprintf(w, "- %s: %.2f (%s) %s %.0f: %s\n", t.Name, t.Value, t.Where, cmp, t.Limit, verdict)
	}
}

func errorsOf(s *stats) int {
	if s == nil {
		return 0
	}
	return s.Errors
}

func writeJSON(path string, r any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// loadAvg is the machine's 1-minute load average (0 where /proc is missing).
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}
