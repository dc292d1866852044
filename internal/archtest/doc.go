// Package archtest holds the tests that keep mtk's architecture where the compiler does not: the
// import graph points one way (see layers) and api depends on no wiring, the engine composes SQL
// from fragments that carry their arguments, only package platform writes and reads the
// platform's tables (see platformTables), only package ingest/conversions writes
// conversion_outbox, and only package answers runs the engine's statements (see runPath).
// It has no code of its own.
package archtest
