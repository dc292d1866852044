// Package engine answers metric queries (POST /v3/query, GET /v3/fields) from ClickHouse.
//
// It owns the fact tables (facts_raw and its hourly and daily rollups, and the landing tables
// that sync batches write exactly once: InsertBatch, MissingBatchFacts), the entity dimension,
// the registries of metrics and dimensions, and the compiler that turns a validated QueryInput
// and the project's Scope into SQL and bound arguments without I/O. Service runs the compiled
// statements with the query limits, falls back to coarser tables when the exact one holds no
// data, and shapes the rows. README.md in this directory records the choices made: money
// representation and rounding, the default time range, gap filling, fallback, and time zones
// with non-hour offsets.
package engine
