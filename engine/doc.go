// Package engine answers metric queries (POST /v3/query, GET /v3/fields) from ClickHouse.
//
// It reads the fact tables that package facts owns and writes (facts_raw, its hourly and daily
// rollups, the entity dimension, and the attribution models' precomputed credits, credits_raw and
// its rollups); it owns the registries of metrics and dimensions and the
// compiler that turns a validated QueryInput and the project's Scope into SQL and bound arguments
// without I/O. Service runs the compiled statements with the query limits, falls back to coarser
// tables when the exact one holds no data, and shapes the rows. README.md in this directory
// records the choices made: money representation and rounding, the default time range, gap
// filling, fallback, and time zones with non-hour offsets.
package engine
