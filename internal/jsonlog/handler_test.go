package jsonlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"
	"testing/slogtest"
	"time"
)

// pair is a record's line from this package's handler and from slog's, built the same way.
type pair struct{ fast, slog bytes.Buffer }

// handlers returns this package's handler and slog's, both with the same options, then shaped by
// shape (WithAttrs, WithGroup) alike.
func (p *pair) handlers(opts *slog.HandlerOptions, shape func(slog.Handler) slog.Handler) (slog.Handler, slog.Handler) {
	return shape(New(&p.fast, opts)), shape(slog.NewJSONHandler(&p.slog, opts))
}

func same(h slog.Handler) slog.Handler { return h }

// compare writes r through fast's Handle and HandleAttrs and ref's Handle, and wants the same
// line thrice.
func (p *pair) compare(t *testing.T, fast, ref slog.Handler, r slog.Record) bool {
	t.Helper()
	if err := ref.Handle(context.Background(), r.Clone()); err != nil {
		t.Fatal(err)
	}
	want := p.slog.String()
	if err := fast.Handle(context.Background(), r.Clone()); err != nil {
		t.Fatal(err)
	}
	var attrs []slog.Attr
	r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
	if err := fast.(*Handler).HandleAttrs(r.Time, r.Level, r.Message, attrs); err != nil {
		t.Fatal(err)
	}
	if got := p.fast.String(); got != want+want {
		t.Errorf("lines differ:\n jsonlog %q\n slog    %q", got, want)
		return false
	}
	return true
}

// hostile holds strings that need escaping: quotes, backslashes, control bytes, invalid UTF-8,
// HTML characters, the JavaScript line separators, multibyte runes.
var hostile = []string{
	"", "plain", `q"uote`, `back\slash`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "bad\xffutf8\xc3",
	"<script>&amp;</script>", "line\u2028sep\u2029par", "ünïcødé 日本 🎉", "\xed\xa0\x80", "a\"\\\n\u2028\xff",
}

type logValuer struct{ s string }

func (l logValuer) LogValue() slog.Value { return slog.StringValue("lv:" + l.s) }

// TestSameAsSlog writes a table of records through both handlers and wants the same bytes.
func TestSameAsSlog(t *testing.T) {
	at := time.Date(2026, 11, 29, 17, 20, 15, 123456789, time.UTC)
	cases := []struct {
		name  string
		opts  *slog.HandlerOptions
		shape func(slog.Handler) slog.Handler
		rec   func() slog.Record
	}{
		{"request line", nil, same, func() slog.Record {
			r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
			r.AddAttrs(slog.String("method", "POST"), slog.String("route", "/v1/query"), slog.Int("status", 200),
				slog.Float64("duration_ms", 0.007), slog.String("request_id", "req_abc"), slog.String("workspace", "ws_1"))
			return r
		}},
		{"every fast kind", nil, same, func() slog.Record {
			r := slog.NewRecord(at.In(time.FixedZone("X", -5*3600-30*60)), slog.LevelWarn+2, "m", 0)
			r.AddAttrs(slog.Int64("i", math.MinInt64), slog.Uint64("u", math.MaxUint64), slog.Bool("b", true),
				slog.Bool("f", false), slog.Duration("d", -90*time.Second), slog.Time("t", at.Add(time.Nanosecond)),
				slog.Time("zero", time.Time{}), slog.Float64("neg0", math.Copysign(0, -1)))
			return r
		}},
		{"floats", nil, same, func() slog.Record {
			r := slog.NewRecord(at, slog.LevelDebug-1, "floats", 0)
			for _, f := range []float64{0, 1, -1.5, 1e-6, 9.99e-7, 1e-9, 1.5e-10, 1e20, 1e21, 123456789e30, math.MaxFloat64,
				math.SmallestNonzeroFloat64, 0.1, 1.0 / 3, 2.5e-300} {
				r.AddAttrs(slog.Float64("f", f))
			}
			return r
		}},
		{"no time", nil, same, func() slog.Record { return slog.NewRecord(time.Time{}, slog.LevelError, "no time", 0) }},
		{"hostile strings", nil, same, func() slog.Record {
			r := slog.NewRecord(at, slog.LevelInfo, hostile[len(hostile)-1], 0)
			for _, s := range hostile {
				r.AddAttrs(slog.String(s, s))
			}
			return r
		}},
		{"slog's path: NaN, Inf, errors, any, groups, LogValuer, year 10000", nil, same, func() slog.Record {
			r := slog.NewRecord(at, slog.LevelInfo, "slow", 0)
			r.AddAttrs(slog.Float64("nan", math.NaN()), slog.Float64("inf", math.Inf(-1)), slog.Any("err", errors.New("e\n<x>")),
				slog.Any("map", map[string]int{"<a>": 1}), slog.Group("g", slog.Int("x", 1), slog.Group("empty")),
				slog.Any("lv", logValuer{"v"}), slog.Time("far", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)),
				slog.Attr{}, slog.Any("nil", nil), slog.Group("", slog.String("inline", "y")))
			return r
		}},
		{"record time year 10000", nil, same, func() slog.Record {
			return slog.NewRecord(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), slog.LevelInfo, "far", 0)
		}},
		{"WithAttrs", nil, func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("svc", "mtk\"api"), slog.Int("pid", 7)}).WithAttrs(nil).WithAttrs([]slog.Attr{slog.Bool("b", true)})
		}, func() slog.Record {
			r := slog.NewRecord(at, slog.LevelInfo, "with", 0)
			r.AddAttrs(slog.String("k", "v"))
			return r
		}},
		{"WithAttrs of slog's path", nil, func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.Any("err", errors.New("x"))}).WithAttrs([]slog.Attr{slog.Int("n", 1)})
		}, func() slog.Record { return slog.NewRecord(at, slog.LevelInfo, "with", 0) }},
		{"WithGroup", nil, func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.Int("a", 1)}).WithGroup("").WithGroup("g").WithAttrs([]slog.Attr{slog.Int("b", 2)}).WithGroup("h")
		}, func() slog.Record {
			r := slog.NewRecord(at, slog.LevelInfo, "grouped", 0)
			r.AddAttrs(slog.Int("c", 3))
			return r
		}},
		{"WithGroup, no attributes", nil, func(h slog.Handler) slog.Handler { return h.WithGroup("g") },
			func() slog.Record { return slog.NewRecord(at, slog.LevelInfo, "empty group", 0) }},
		{"ReplaceAttr", &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}, same, func() slog.Record {
			r := slog.NewRecord(at, slog.LevelInfo, "replaced", 0)
			r.AddAttrs(slog.Int("n", 1))
			return r
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p pair
			fast, ref := p.handlers(c.opts, c.shape)
			p.compare(t, fast, ref, c.rec())
		})
	}
}

// TestSameAsSlogRandom writes seeded random records (random kinds, keys, strings of random
// bytes and runes, floats of random bits, WithAttrs and WithGroup) through both handlers.
func TestSameAsSlogRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 4))
	var p pair
	for i := range 20000 {
		p.fast.Reset()
		p.slog.Reset()
		var with []slog.Attr
		if rng.IntN(4) == 0 {
			with = randomAttrs(rng, 2)
		}
		group := ""
		if rng.IntN(10) == 0 {
			group = randomString(rng)
		}
		fast, ref := p.handlers(nil, func(h slog.Handler) slog.Handler {
			h = h.WithAttrs(with)
			if group != "" {
				h = h.WithGroup(group)
			}
			return h
		})
		var tm time.Time
		if rng.IntN(10) != 0 {
			tm = time.Unix(rng.Int64N(1<<35), rng.Int64N(1e9)).In(time.FixedZone("z", 60*(rng.IntN(1440)-720)))
		}
		r := slog.NewRecord(tm, slog.Level(rng.IntN(20)-8), randomString(rng), 0)
		r.AddAttrs(randomAttrs(rng, 8)...)
		if !p.compare(t, fast, ref, r) {
			t.Fatalf("record %d", i)
		}
	}
}

func randomAttrs(rng *rand.Rand, max int) []slog.Attr {
	as := make([]slog.Attr, rng.IntN(max+1))
	for i := range as {
		k := randomString(rng)
		switch rng.IntN(10) {
		case 0:
			as[i] = slog.String(k, randomString(rng))
		case 1:
			as[i] = slog.Int64(k, int64(rng.Uint64()))
		case 2:
			as[i] = slog.Uint64(k, rng.Uint64())
		case 3:
			as[i] = slog.Float64(k, math.Float64frombits(rng.Uint64()))
		case 4:
			as[i] = slog.Float64(k, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(60)-30)))
		case 5:
			as[i] = slog.Bool(k, rng.IntN(2) == 0)
		case 6:
			as[i] = slog.Duration(k, time.Duration(rng.Int64()))
		case 7:
			as[i] = slog.Time(k, time.Unix(rng.Int64N(1<<36)-1<<35, rng.Int64N(1e9)).UTC())
		case 8:
			as[i] = slog.Any(k, errors.New(randomString(rng)))
		default:
			as[i] = slog.Attr{Key: k, Value: slog.GroupValue(randomAttrs(rng, 2)...)}
		}
	}
	return as
}

// randomString draws from hostile strings, random bytes and random runes.
func randomString(rng *rand.Rand) string {
	switch rng.IntN(3) {
	case 0:
		return hostile[rng.IntN(len(hostile))]
	case 1:
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return string(b)
	}
	rs := make([]rune, rng.IntN(8))
	for i := range rs {
		rs[i] = rune(rng.IntN(0x30000))
	}
	return string(rs)
}

// TestSlogtest runs the standard library's handler conformance test.
func TestSlogtest(t *testing.T) {
	var buf bytes.Buffer
	slogtest.Run(t, func(*testing.T) slog.Handler { buf.Reset(); return New(&buf, nil) }, func(t *testing.T) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatalf("%v: %q", err, buf.String())
		}
		return m
	})
}

// TestHandleAllocs wants the request line written without an allocation.
func TestHandleAllocs(t *testing.T) {
	h := New(discard{}, nil)
	r := requestRecord()
	if n := testing.AllocsPerRun(1000, func() { _ = h.Handle(context.Background(), r) }); n != 0 {
		t.Fatalf("Handle: %v allocations per line, want 0", n)
	}
	attrs := requestAttrs()
	if n := testing.AllocsPerRun(1000, func() { _ = h.HandleAttrs(r.Time, r.Level, r.Message, attrs) }); n != 0 {
		t.Fatalf("HandleAttrs: %v allocations per line, want 0", n)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func requestRecord() slog.Record {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(requestAttrs()...)
	return r
}

// requestAttrs are the attributes of api's request line.
func requestAttrs() []slog.Attr {
	return []slog.Attr{slog.String("method", "POST"), slog.String("route", "/v3/query"), slog.Int("status", 200),
		slog.Float64("duration_ms", 0.042), slog.String("request_id", "req_0123456789abcdefghij"), slog.String("workspace", "ws_0123456789")}
}

// BenchmarkRequestLine prints what the request log's line costs here and in slog's handler.
func BenchmarkRequestLine(b *testing.B) {
	r := requestRecord()
	for _, c := range []struct {
		name string
		h    slog.Handler
	}{{"jsonlog", New(discard{}, nil)}, {"slog", slog.NewJSONHandler(discard{}, nil)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.h.Handle(context.Background(), r)
			}
		})
	}
}
