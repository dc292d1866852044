package db

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Refused reports whether err is PostgreSQL refusing a value the statement carried, an error of
// that statement's data and not of the server: SQLSTATE class 22 (data exception: a NUL or
// invalid UTF-8 in a text, a number out of range), class 23 (integrity constraint violation) or
// 54000 (a program limit such as an index row too large). The same statement without the value
// would succeed, unlike an outage (Unavailable) or a bug.
func Refused(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23") || pgErr.Code == "54000"
}
