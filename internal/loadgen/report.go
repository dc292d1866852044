package loadgen

import "strconv"

// Report is a whole `mtk bench` run, as --json prints it and --compare reads it.
type Report struct {
	URL   string `json:"url"`
	Cells []Cell `json:"cells"`
}

// Cell is one load level at one cache setting: a concurrency (closed loop) or a rate (open model).
type Cell struct {
	// Mode is "concurrency" or "rate"; Level its value.
	Mode  string  `json:"mode"`
	Level float64 `json:"level"`
	// Cache is "on" or "off" (every request sent with Cache-Control: no-cache).
	Cache   string    `json:"cache"`
	Window  float64   `json:"window_s"`
	Queries []Summary `json:"queries"`
	Mix     Summary   `json:"mix"`
	// Open model only: the rate the requests were sent at, how many waited for a free slot
	// (--max-inflight), and the longest a request waited past its scheduled start to be sent.
	Achieved float64 `json:"achieved_rate,omitempty"`
	Queued   int     `json:"queued,omitempty"`
	MaxLag   float64 `json:"max_lag_ms,omitempty"`
}

// The modes of a Cell.
const (
	ModeConcurrency = "concurrency"
	ModeRate        = "rate"
)

// NewCell sums up r per query of queries and for the mix.
func NewCell(mode string, level float64, cache string, queries []Query, r Result) Cell {
	c := Cell{Mode: mode, Level: level, Cache: cache, Window: r.Window.Seconds(),
		Mix: Summarize("mix", r.Samples, r.Window, func(Sample) bool { return true })}
	for i, q := range queries {
		c.Queries = append(c.Queries, Summarize(q.Name, r.Samples, r.Window, func(s Sample) bool { return s.Query == i }))
	}
	if mode == ModeRate {
		c.Achieved, c.Queued, c.MaxLag = r.Achieved(), r.Queued, ms(r.MaxLag)
	}
	return c
}

// Key names the cell among a report's: what --compare matches on.
func (c Cell) Key() string {
	return c.Mode + " " + strconv.FormatFloat(c.Level, 'f', -1, 64) + ", cache " + c.Cache
}
