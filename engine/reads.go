package engine

import (
	"context"

	"mtk/internal/chhttp"
)

// rows are a read statement's answer, as clickhouse-go's native protocol and the HTTP reader
// (internal/chhttp) both give it.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// HTTPReader reads statements over ClickHouse's HTTP interface (Options.HTTP).
type HTTPReader = chhttp.Client

// read runs st, a statement on table, with the table's settings: the one place the engine sends
// a read statement. With Options.HTTP it goes over ClickHouse's HTTP interface, its values
// bound by Bind (the quoting clickhouse-go does on the native protocol); otherwise through the
// native connection. Errors are mapped (mapError) either way.
func (s *Service) read(ctx context.Context, table string, st Statement) (rows, error) {
	if s.opts.HTTP != nil {
		sql, err := Bind(Statement{SQL: s.sql(st), Args: st.Args})
		if err != nil {
			return nil, err
		}
		r, err := s.opts.HTTP.Query(ctx, sql, s.Settings(table))
		if err != nil {
			return nil, mapError(err)
		}
		return r, nil
	}
	r, err := s.conn.Query(s.limited(ctx, table), s.sql(st), st.Args...)
	if err != nil {
		return nil, mapError(err)
	}
	return r, nil
}
