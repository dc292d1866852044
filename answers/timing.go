package answers

import (
	"strconv"
	"time"
)

// Source is where an answer came from: Server-Timing's `source` and explain's `source` name it.
type Source string

const (
	// SourceMemory is this replica's answer cache (Cache).
	SourceMemory Source = "memory"
	// SourceShared is the answer tier the replicas share in Redis (Shared).
	SourceShared Source = "shared"
	// SourceClickHouse is an answer read from ClickHouse.
	SourceClickHouse Source = "clickhouse"
)

// serverTiming is an answer's Server-Timing header (W3C): db is the time its ClickHouse
// statements took (sent, run and read; not the wait for a query slot; 0 for a cached answer),
// total the server's whole handling, from reading the body to the encoded answer; cache says
// whether the answer came from the answer cache (hit, from this replica's or the shared tier) or
// was read (miss), and source where it came from (memory, shared or clickhouse). A 304 sends no
// answer: it names no source (src "").
func serverTiming(db, total time.Duration, src Source) string {
	b := make([]byte, 0, 72)
	b = append(b, "db;dur="...)
	b = appendMS(b, db)
	b = append(b, ", total;dur="...)
	b = appendMS(b, total)
	if src == SourceClickHouse {
		b = append(b, ", cache;desc=miss"...)
	} else {
		b = append(b, ", cache;desc=hit"...)
	}
	if src != "" {
		b = append(b, ", source;desc="...)
		b = append(b, src...)
	}
	return string(b)
}

func appendMS(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d)/float64(time.Millisecond), 'f', 2, 64)
}
