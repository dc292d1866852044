package db

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// unavailableStates are the PostgreSQL SQLSTATEs of a server that cannot serve now: shutting
// down (57P01 admin, 57P02 crash), starting (57P03), out of connections (53300), a connection
// lost (class 08), or a statement canceled (57014: its context's deadline passed, see
// OpenPostgres, or a statement timeout).
var unavailableStates = map[string]bool{"57P01": true, "57P02": true, "57P03": true, "53300": true,
	"08000": true, "08003": true, "08006": true, "08001": true, "08004": true, "57014": true}

// Unavailable reports whether err means a store (PostgreSQL or ClickHouse) did not answer:
// refused, reset or lost connections, a server shutting down or starting, a timeout, ClickHouse
// not migrated yet (ErrNotMigrated). Such a
// request may succeed if retried (503 with Retry-After), unlike a bug.
func Unavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return unavailableStates[pgErr.Code]
	}
	var connectErr *pgconn.ConnectError
	var netErr *net.OpError
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.Timeout(err) || errors.Is(err, ErrNotMigrated) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || pgconn.SafeToRetry(err)
}
