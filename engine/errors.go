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

// mapError turns a ClickHouse or connection error into the error a client sees: a query over
// its limits is a 503 (time, memory) or a 400 (too much data to read); an unreachable store a
// 503; anything else stays an internal error.
func mapError(err error) error {
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		switch ex.Code {
		case chTimeoutExceeded, chQueryWasCancelled:
			return apperr.Unavailable("The query took too long. Narrow the time range, the fields or the level.", 5)
		case chMemoryLimitExceeded:
			return apperr.Unavailable("The metrics store is out of memory for this query. Try again later or narrow it.", 30)
		case chTooManyRows, chTooManyBytes, chTooManyRowsOrBytes:
			return apperr.Invalid("The query would read too much data.", "time: narrow the range or add filters")
		}
		return fmt.Errorf("engine: clickhouse exception %d: %w", ex.Code, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.Unavailable("The query took too long. Narrow the time range, the fields or the level.", 5)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return apperr.Unavailable("The metrics store is unavailable.", 5)
	}
	return fmt.Errorf("engine: %w", err)
}
