package client

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The wall clock's wait ends with its context: a call canceled while it waits for an hour's
// Retry-After returns at once.
func TestWallClockSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if err := (wallClock{}).Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep returned %v, want context.Canceled", err)
	}
	if err := (wallClock{}).Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a short sleep failed: %v", err)
	}
}
