package answers

import (
	"strconv"
	"time"
)

// serverTiming is an answer's Server-Timing header (W3C): db is the time its ClickHouse
// statements took (sent, run and read; not the wait for a query slot; 0 for a cached answer),
// total the server's whole handling, from reading the body to the encoded answer; cache says
// whether the answer came from the answer cache (hit) or was read (miss).
func serverTiming(db, total time.Duration, hit bool) string {
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
	}
	cache := "miss"
	if hit {
		cache = "hit"
	}
	return "db;dur=" + ms(db) + ", total;dur=" + ms(total) + ", cache;desc=" + cache
}
