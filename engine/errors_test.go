package engine

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"

	"mtk/internal/apperr"
)

func TestMapErrorByExceptionCode(t *testing.T) {
	cases := []struct {
		err        error
		status     int
		code       string
		retryAfter bool
	}{
		{&clickhouse.Exception{Code: chTimeoutExceeded, Message: "Timeout exceeded"}, 503, apperr.CodeServiceUnavailable, true},
		{fmt.Errorf("wrapped: %w", &clickhouse.Exception{Code: chMemoryLimitExceeded}), 503, apperr.CodeServiceUnavailable, true},
		{&clickhouse.Exception{Code: chTooManyRows}, 400, apperr.CodeInvalidParameter, false},
		{&clickhouse.Exception{Code: chTooManyRowsOrBytes}, 400, apperr.CodeInvalidParameter, false},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), 503, apperr.CodeServiceUnavailable, true},
	}
	for _, tc := range cases {
		e, ok := apperr.As(mapError(tc.err))
		if !ok || e.Status != tc.status || e.Code != tc.code || (e.RetryAfter > 0) != tc.retryAfter {
			t.Errorf("%v: got %+v", tc.err, e)
		}
	}
	for _, err := range []error{&clickhouse.Exception{Code: 47, Message: "Unknown identifier"}, errors.New("boom")} {
		if _, ok := apperr.As(mapError(err)); ok {
			t.Errorf("%v became a client error", err)
		}
	}
}
