package loadgen

import (
	"strconv"
	"strings"
	"time"
)

// Timing is an answer's Server-Timing header: db;dur=…, total;dur=…, cache;desc=hit|miss.
type Timing struct {
	// Known is false when the answer had no such header (an error answer).
	Known     bool
	DB, Total time.Duration
	Hit       bool
}

// ParseServerTiming reads the entries it knows of h and ignores the others.
func ParseServerTiming(h string) Timing {
	var t Timing
	for _, entry := range strings.Split(h, ",") {
		parts := strings.Split(strings.TrimSpace(entry), ";")
		name := strings.TrimSpace(parts[0])
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			switch {
			case k == "dur" && (name == "db" || name == "total"):
				ms, err := strconv.ParseFloat(v, 64)
				if err != nil {
					continue
				}
				d := time.Duration(ms * float64(time.Millisecond))
				if name == "db" {
					t.DB = d
				} else {
					t.Total = d
				}
				t.Known = true
			case k == "desc" && name == "cache":
				t.Hit, t.Known = v == "hit", true
			}
		}
	}
	return t
}
