package logbuf

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records each write it is given, and fails them while failing is set.
type writes struct {
	mu      sync.Mutex
	got     []string
	failing bool
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failing {
		return 0, errors.New("disk full")
	}
	w.got = append(w.got, string(p))
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.got...)
}

// never is a flusher's interval that does not tick during a test, which then sees only the
// writes it causes.
const never = time.Hour

func TestWriterBatchesWholeLines(t *testing.T) {
	out := &writes{}
	w := newWriter(out, never)
	defer w.Close()
	line := strings.Repeat("x", 999) + "\n"
	per := Size / len(line) // lines that fit in one write
	for range per + 1 {
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	// The line that did not fit sent the ones held before it, in one write of whole lines.
	got := out.all()
	if len(got) != 1 || got[0] != strings.Repeat(line, per) {
		t.Fatalf("writes %d (first %d bytes), want one of %d lines", len(got), len(got[0]), per)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.all(); len(got) != 2 || got[1] != line {
		t.Fatalf("after Flush: %d writes", len(got))
	}
	long := strings.Repeat("y", Size+1) + "\n"
	if _, err := w.Write([]byte(long)); err != nil {
		t.Fatal(err)
	}
	if got := out.all(); len(got) != 3 || got[2] != long {
		t.Fatalf("a line longer than the buffer: %d writes", len(got))
	}
}

func TestWriterFlushesWithinInterval(t *testing.T) {
	out := &writes{}
	w := New(out)
	defer w.Close()
	if _, err := w.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * Interval); len(out.all()) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the line was not written within %s", 10*Interval)
		}
		time.Sleep(Interval / 10)
	}
	if got := out.all(); len(got) != 1 || got[0] != "a\n" {
		t.Fatalf("writes %q", got)
	}
}

func TestWriterCloseWritesOutAndThenStraight(t *testing.T) {
	var out bytes.Buffer
	w := newWriter(&out, never)
	w.Write([]byte("a\n")) //nolint:errcheck // held
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "a\n" {
		t.Fatalf("after Close: %q", out.String())
	}
	w.Write([]byte("b\n")) //nolint:errcheck // straight
	if out.String() != "a\nb\n" {
		t.Fatalf("a line after Close: %q", out.String())
	}
	if err := w.Close(); err != nil { // twice is harmless
		t.Fatal(err)
	}
}

// A failed write loses the lines it carried, not the writer: the next lines go out.
func TestWriterGoesOnAfterAFailedWrite(t *testing.T) {
	out := &writes{failing: true}
	w := newWriter(out, never)
	defer w.Close()
	w.Write([]byte("lost\n")) //nolint:errcheck // held
	if err := w.Flush(); err == nil {
		t.Fatal("Flush: no error from a failing writer")
	}
	out.mu.Lock()
	out.failing = false
	out.mu.Unlock()
	w.Write([]byte("kept\n")) //nolint:errcheck // held
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.all(); len(got) != 1 || got[0] != "kept\n" {
		t.Fatalf("writes %q", got)
	}
}
