package jsonlog

import (
	"log/slog"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// fastKind reports whether v is written here exactly as slog.JSONHandler writes it. A float64
// that is not finite is an error in JSON (slog writes one); a time outside years 0–9999 gets an
// error appended by slog; everything of KindAny, KindGroup or KindLogValuer goes to slog.
func fastKind(v slog.Value) bool {
	switch v.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindBool, slog.KindDuration:
		return true
	case slog.KindFloat64:
		f := v.Float64()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case slog.KindTime:
		return timeFits(v.Time())
	}
	return false
}

// appendValue appends v, which fastKind accepted.
func appendValue(buf []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendString(buf, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(buf, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(buf, v.Uint64(), 10)
	case slog.KindFloat64:
		return appendFloat(buf, v.Float64())
	case slog.KindBool:
		return strconv.AppendBool(buf, v.Bool())
	case slog.KindDuration:
		return strconv.AppendInt(buf, int64(v.Duration()), 10)
	case slog.KindTime:
		return appendTime(buf, v.Time())
	}
	panic("jsonlog: appendValue of a kind fastKind refuses: " + v.Kind().String())
}

// timeFits reports whether t's year has the four digits RFC 3339 allows; slog appends an error
// to other times.
func timeFits(t time.Time) bool {
	y := t.Year()
	return y >= 0 && y < 10000
}

func appendTime(buf []byte, t time.Time) []byte {
	buf = append(buf, '"')
	buf = t.AppendFormat(buf, time.RFC3339Nano)
	return append(buf, '"')
}

// appendFloat writes a finite f as encoding/json does (slog calls json.Marshal for floats): the
// shortest representation, in exponent form below 1e-6 and from 1e21, with "e-09" as "e-9".
func appendFloat(buf []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if format == 'e' {
		if n := len(buf); n >= 4 && buf[n-4] == 'e' && buf[n-3] == '-' && buf[n-2] == '0' {
			buf[n-2] = buf[n-1]
			buf = buf[:n-1]
		}
	}
	return buf
}

// appendString appends s quoted and escaped as slog's JSON handler does: `"`, `\` and control
// bytes escaped (\n, \r, \t by name), invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped, and
// everything else (including <, > and &) as it is.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '\\', '"':
				buf = append(buf, '\\', b)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

const hex = "0123456789abcdef"
