package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/ClickHouse/clickhouse-go/v2"

	"mtk/internal/apperr"
)

// ClickHouse exception codes the engine maps.
const (
	chTooManyRows         = 158
	chTimeoutExceeded     = 159
	chMemoryLimitExceeded = 241
	chTooManyBytes        = 307
	chQueryWasCancelled   = 394
	chTooManyRowsOrBytes  = 396
)

// The client errors mapError answers with, one value each so that observe can tell them apart
// (errors.Is finds them through the copies that carry a cause).
var (
	errTooSlow     = apperr.Unavailable("The query took too long. Narrow the time range, the fields or the level.", 5)
	errOutOfMemory = apperr.Unavailable("The metrics store is out of memory for this query. Try again later or narrow it.", 30)
	errTooMuchData = apperr.Invalid("The query would read too much data.", "time: narrow the range or add filters")
	errStoreDown   = apperr.Unavailable("The metrics store is unavailable.", 5)
	errBusy        = apperr.Unavailable("The metrics store is busy with other queries; retry shortly.", 1)
)

// mapError turns a ClickHouse or connection error into the error a client sees, wrapping the
// driver's error so that the log says why: a query over its limits is a 503 (time, memory) or a
// 400 (too much data to read); an unreachable store a 503; anything else stays an internal error.
func mapError(err error) error {
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		switch ex.Code {
		case chTimeoutExceeded, chQueryWasCancelled:
			return errTooSlow.WithCause(err)
		case chMemoryLimitExceeded:
			return errOutOfMemory.WithCause(err)
		case chTooManyRows, chTooManyBytes, chTooManyRowsOrBytes:
			return errTooMuchData.WithCause(err)
		}
		return fmt.Errorf("engine: clickhouse exception %d: %w", ex.Code, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errTooSlow.WithCause(err)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return errStoreDown.WithCause(err)
	}
	return fmt.Errorf("engine: %w", err)
}
