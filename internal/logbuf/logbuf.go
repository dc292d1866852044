// Package logbuf batches a process's log lines into few writes. A line written straight to
// stdout costs a write system call per request (5–6 µs of an answer cache hit's 14–15 in
// memory, benchmarks/README.md "Answer cache hits"); here lines wait in a buffer that is written
// out when the next line would not fit, every Interval, and at Close. What a crash may lose is
// what waits: at most Interval's or Size bytes' worth of lines (a process killed with SIGKILL,
// or a runtime fatal error).
package logbuf

import (
	"io"
	"sync"
	"time"
)

const (
	// Size is the buffer's capacity: a write(2) carries at most this much, whole lines only
	// (a single longer line goes out alone), so a pipe's reader never sees a line cut between
	// two writes of this process.
	Size = 64 << 10
	// Interval is the longest a line waits in the buffer before it is written out.
	Interval = 100 * time.Millisecond
)

// Writer is an io.Writer, safe for concurrent use, that holds what it is given for up to
// Interval. Each Write is expected to be whole lines (slog's handlers write one line per call).
type Writer struct {
	mu     sync.Mutex
	out    io.Writer
	buf    []byte
	closed bool // after Close, lines are written straight (the last ones of a shutdown)
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// New starts a Writer over out; Close writes out what is left and stops its flusher.
func New(out io.Writer) *Writer { return newWriter(out, Interval) }

// newWriter is New with the flusher's interval given (tests choose one that never ticks).
func newWriter(out io.Writer, every time.Duration) *Writer {
	w := &Writer{out: out, buf: make([]byte, 0, Size), stop: make(chan struct{}), done: make(chan struct{})}
	go w.flushEvery(every)
	return w
}

// Write keeps p, writing out the lines held first when p would not fit. It fails only when that
// write fails; the lines it held are dropped then, so that one failed write costs its own lines
// and the writer goes on (as a line written straight would).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf)+len(p) > cap(w.buf) {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
	}
	if w.closed || len(p) > cap(w.buf) {
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Flush writes out the lines held.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Close stops the flusher and writes out the lines held; lines written after it go out at once.
func (w *Writer) Close() error {
	w.once.Do(func() { close(w.stop) })
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return w.flushLocked()
}

func (w *Writer) flushEvery(d time.Duration) {
	defer close(w.done)
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.Flush() //nolint:errcheck // a failed write loses its lines, as a line written straight would
		}
	}
}
