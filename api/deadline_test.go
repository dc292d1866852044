package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// lazyDeadline behaves as context.WithDeadline: its deadline, its parent's values, done at the
// deadline (armed when waited on), cancelled when released, and a context derived from it
// cancelled with it; released unwaited, it is cancelled and keeps its parent's values.
func TestLazyDeadlineIsWithDeadline(t *testing.T) {
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	at := time.Now().Add(50 * time.Millisecond)
	c := &lazyDeadline{Context: parent, deadline: at}
	if d, ok := c.Deadline(); !ok || !d.Equal(at) || c.Value(ctxKey{}) != "v" || c.made.Load() {
		t.Fatalf("deadline %v %v, value %v, armed %v", d, ok, c.Value(ctxKey{}), c.made.Load())
	}
	child, cancel := context.WithCancel(c)
	defer cancel()
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the derived context outlived the deadline")
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) || c.Value(ctxKey{}) != "v" {
		t.Fatalf("err %v, child %v, value %v", c.Err(), child.Err(), c.Value(ctxKey{}))
	}
	c.release()

	idle := &lazyDeadline{Context: parent, deadline: time.Now().Add(time.Hour)}
	idle.release()
	if !errors.Is(idle.Err(), context.Canceled) || idle.Value(ctxKey{}) != "v" {
		t.Fatalf("released unwaited: err %v, value %v", idle.Err(), idle.Value(ctxKey{}))
	}
	waited := &lazyDeadline{Context: parent, deadline: time.Now().Add(time.Hour)}
	done := waited.Done()
	waited.release()
	select {
	case <-done:
	default:
		t.Fatal("released, a waited context is not done")
	}
	if !errors.Is(waited.Err(), context.Canceled) {
		t.Fatalf("released: %v", waited.Err())
	}
}
