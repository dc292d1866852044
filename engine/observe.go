package engine

import (
	"context"
	"errors"
	"time"

	"mtk/internal/apperr"
)

// Observation is what Options.Observe hears about one Query call.
type Observation struct {
	// Table is the resolution that answered, or whose statement failed: "raw", "hourly" or
	// "daily"; empty when the query was refused before any statement ran.
	Table string
	// Fallback is true when a coarser table than the one that answers the range exactly
	// answered, because that one had no data for the range.
	Fallback bool
	// Took is the whole call, compilation included.
	Took time.Duration
	// Shared is true when the answer was another caller's, run for an identical query that was
	// under way (single flight).
	Shared bool
	// ErrorKind is empty when the query was answered, else one of the Error* kinds.
	ErrorKind string
}

// The kinds of a failed query (Observation.ErrorKind).
const (
	// ErrorInvalid: the query was refused (validation, 4xx) before or without reading data.
	ErrorInvalid = "invalid"
	// ErrorTooMuchData: the statement would read more than MaxRowsToRead (400).
	ErrorTooMuchData = "too_much_data"
	// ErrorTimeout: the statement ran past MaxExecutionTime or the request's deadline (503).
	ErrorTimeout = "timeout"
	// ErrorMemory: ClickHouse ran out of memory for the statement (503).
	ErrorMemory = "memory"
	// ErrorUnavailable: ClickHouse could not be reached (503).
	ErrorUnavailable = "unavailable"
	// ErrorBusy: the statement waited MaxExecutionTime for a slot (503).
	ErrorBusy = "busy"
	// ErrorCanceled: the caller went away.
	ErrorCanceled = "canceled"
	// ErrorInternal: anything else (500).
	ErrorInternal = "internal"
)

// observe tells Options.Observe about a Query call that started at start. c is nil when
// compilation failed; chosen is the attempt that answered or failed.
func (s *Service) observe(start time.Time, c *Compiled, chosen Attempt, shared bool, err error) {
	if s.opts.Observe == nil {
		return
	}
	o := Observation{Took: time.Since(start), Shared: shared}
	if c != nil && chosen.plan != nil {
		o.Table = chosen.plan.table.label()
		o.Fallback = chosen.plan.table != c.Attempts[0].plan.table
	}
	if err != nil {
		o.ErrorKind = errorKind(err)
	}
	s.opts.Observe(o)
}

// errorKind sorts an error of Query into its kind.
func errorKind(err error) string {
	switch {
	case errors.Is(err, errTooMuchData):
		return ErrorTooMuchData
	case errors.Is(err, errTooSlow):
		return ErrorTimeout
	case errors.Is(err, errOutOfMemory):
		return ErrorMemory
	case errors.Is(err, errStoreDown):
		return ErrorUnavailable
	case errors.Is(err, errBusy):
		return ErrorBusy
	case errors.Is(err, context.Canceled):
		return ErrorCanceled
	}
	if e, ok := apperr.As(err); ok && e.Status < 500 {
		return ErrorInvalid
	}
	return ErrorInternal
}
