// Package jsonlog is the service's slog.Handler: it writes what slog.NewJSONHandler writes, byte
// for byte, faster for the records a server logs at every request. slog's handler pays for its
// generality on every line (a handle state, ReplaceAttr hooks, float64s through json.Marshal):
// 1.35 µs of an answer cache hit's 7.4 µs in memory (benchmarks/README.md "Answer cache hits").
//
// The fast path writes records whose attributes are strings, integers, finite floats, booleans,
// durations and times of years 0–9999, with no group. Any other record (a group, a LogValuer, an
// error or any other value, a NaN) goes to a slog.JSONHandler built with the same options,
// attributes and groups, on the same writer: its line is slog's by construction. The tests compare
// the fast path's lines with slog's over a table and random records.
package jsonlog

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Handler writes one JSON object per record, a line each, as slog.JSONHandler does.
type Handler struct {
	out   *lockedWriter
	slow  slog.Handler // slog's JSONHandler with this handler's options, attributes and groups
	level slog.Leveler
	// pre holds the attributes of WithAttrs, formatted as `,"key":value...`.
	pre []byte
	// fast is false when every record must go to slow: options with ReplaceAttr or AddSource, a
	// group opened by WithGroup, or a WithAttrs attribute the fast path does not write.
	fast bool
}

// New returns a handler writing to w, as slog.NewJSONHandler(w, opts) would. Options other than
// Level (ReplaceAttr, AddSource) send every record through slog's own handler.
func New(w io.Writer, opts *slog.HandlerOptions) *Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	out := &lockedWriter{w: w}
	var level slog.Leveler = slog.LevelInfo
	if opts.Level != nil {
		level = opts.Level
	}
	return &Handler{
		out:   out,
		slow:  slog.NewJSONHandler(out, opts),
		level: level,
		fast:  opts.ReplaceAttr == nil && !opts.AddSource,
	}
}

// Enabled reports whether records of level l are written, as slog.JSONHandler does.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

// WithAttrs returns a handler whose records carry as after their own attributes' predecessors.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	h2 := *h
	h2.slow = h.slow.WithAttrs(as)
	if h.fast {
		pre, ok := appendAttrs(append([]byte(nil), h.pre...), as)
		h2.pre, h2.fast = pre, ok
	}
	return &h2
}

// WithGroup returns a handler whose attributes go into the group name (even an empty one, as
// slog.JSONHandler does); its records take slog's path.
func (h *Handler) WithGroup(name string) slog.Handler {
	h2 := *h
	h2.slow = h.slow.WithGroup(name)
	h2.fast, h2.pre = false, nil
	return &h2
}

// Handle writes r as one line in one Write.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.fast {
		return h.slow.Handle(ctx, r)
	}
	b := bufPool.Get().(*[]byte)
	defer putBuf(b)
	line, ok := h.appendHead((*b)[:0], r.Time, r.Level, r.Message)
	if ok {
		r.Attrs(func(a slog.Attr) bool {
			line, ok = appendAttr(line, a)
			return ok
		})
	}
	*b = line
	if !ok {
		return h.slow.Handle(ctx, r)
	}
	return h.write(b)
}

// HandleAttrs writes the line Handle writes for the record of t, level, msg and attrs, without
// the record: a slog.Record keeps five attributes inline and allocates for more. As Handle, it
// leaves Enabled to the caller.
func (h *Handler) HandleAttrs(t time.Time, level slog.Level, msg string, attrs []slog.Attr) error {
	if h.fast {
		b := bufPool.Get().(*[]byte)
		defer putBuf(b)
		line, ok := h.appendHead((*b)[:0], t, level, msg)
		if ok {
			line, ok = appendAttrs(line, attrs)
		}
		*b = line
		if ok {
			return h.write(b)
		}
	}
	r := slog.NewRecord(t, level, msg, 0)
	r.AddAttrs(attrs...)
	return h.slow.Handle(context.Background(), r)
}

// appendHead appends a line's opening: its time, level, message and the attributes of WithAttrs;
// false when the time needs slog's path.
func (h *Handler) appendHead(buf []byte, t time.Time, level slog.Level, msg string) ([]byte, bool) {
	buf = append(buf, '{')
	if !t.IsZero() {
		if !timeFits(t) {
			return buf, false
		}
		buf = append(buf, `"time":`...)
		buf = appendTime(buf, t)
		buf = append(buf, ',')
	}
	buf = append(buf, `"level":`...)
	buf = appendString(buf, level.String())
	buf = append(buf, `,"msg":`...)
	buf = appendString(buf, msg)
	return append(buf, h.pre...), true
}

// write closes the line in *b and writes it.
func (h *Handler) write(b *[]byte) error {
	*b = append(*b, '}', '\n')
	return h.out.write(*b)
}

// appendAttrs appends `,"key":value` for each of as; false when one needs slog's path.
func appendAttrs(buf []byte, as []slog.Attr) ([]byte, bool) {
	for _, a := range as {
		var ok bool
		if buf, ok = appendAttr(buf, a); !ok {
			return buf, false
		}
	}
	return buf, true
}

// appendAttr appends `,"key":value`; false when a's value is not one the fast path writes.
func appendAttr(buf []byte, a slog.Attr) ([]byte, bool) {
	if !fastKind(a.Value) {
		return buf, false
	}
	buf = append(buf, ',')
	buf = appendString(buf, a.Key)
	buf = append(buf, ':')
	return appendValue(buf, a.Value), true
}

// lockedWriter serialises the writes of both paths: slog's handler locks only its own.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) write(p []byte) error {
	_, err := l.Write(p)
	return err
}

// bufPool holds line buffers; a line longer than maxPooled is not kept (a rare huge line would
// otherwise pin its memory).
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooled = 16 << 10

func putBuf(b *[]byte) {
	if cap(*b) <= maxPooled {
		bufPool.Put(b)
	}
}
