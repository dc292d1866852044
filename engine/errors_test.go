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

// The mapped error keeps the driver's error as its cause (for the log) and still sorts into its
// kind, although it is a copy of the shared value.
func TestMapErrorKeepsItsCause(t *testing.T) {
	cases := []struct {
		err  error
		kind string
	}{
		{&clickhouse.Exception{Code: chTimeoutExceeded, Message: "Timeout exceeded"}, ErrorTimeout},
		{&clickhouse.Exception{Code: chMemoryLimitExceeded, Message: "Memory limit"}, ErrorMemory},
		{&clickhouse.Exception{Code: chTooManyBytes, Message: "Too many bytes"}, ErrorTooMuchData},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), ErrorUnavailable},
	}
	for _, tc := range cases {
		got := mapError(tc.err)
		if !errors.Is(got, tc.err) {
			t.Errorf("%v: the cause is lost in %v", tc.err, got)
		}
		if k := errorKind(got); k != tc.kind {
			t.Errorf("%v: kind %s, want %s", tc.err, k, tc.kind)
		}
	}
	if errors.Is(mapError(&clickhouse.Exception{Code: chTimeoutExceeded}), errStoreDown) {
		t.Error("a timeout is taken for an unreachable store")
	}
}
