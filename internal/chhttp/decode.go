package chhttp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// The answer comes in the Native format as the HTTP interface writes it (no client revision:
// the same bytes on ClickHouse 18.16 and current ClickHouse): blocks of columns, each with its
// name and type, values in their binary form. Text formats lose what the engine needs: a
// DateTime's text repeats in the hour a DST change repeats, and a Decimal's text drops trailing
// zeros on current ClickHouse.

// Rows is a statement's answer, read whole, in the order the server sent it.
type Rows struct {
	names []string
	rows  [][]any
	i     int
}

// Next moves to the next row; false after the last.
func (r *Rows) Next() bool {
	if r.i >= len(r.rows) {
		return false
	}
	r.i++
	return true
}

// Err is nil: the answer was read whole before the first row (Query returned its error).
func (r *Rows) Err() error { return nil }

// Close releases nothing (the answer is in memory); it is here so that callers treat Rows as
// clickhouse-go's.
func (r *Rows) Close() error { return nil }

// Columns are the answer's column names.
func (r *Rows) Columns() []string { return r.names }

// Scan copies the current row into dests, one per column, each a pointer to exactly the Go type
// clickhouse-go scans that column into (decode.go's column types).
func (r *Rows) Scan(dests ...any) error {
	if r.i == 0 || r.i > len(r.rows) {
		return errors.New("chhttp: Scan without a row")
	}
	row := r.rows[r.i-1]
	if len(dests) != len(row) {
		return fmt.Errorf("chhttp: %d destinations for %d columns", len(dests), len(row))
	}
	for i, d := range dests {
		if err := assign(d, row[i]); err != nil {
			return fmt.Errorf("chhttp: column %s: %w", r.names[i], err)
		}
	}
	return nil
}

// assign stores v in the pointer d when d points to v's type (slices of any become the typed
// slices the engine scans arrays into).
func assign(d, v any) error {
	switch p := d.(type) {
	case *string:
		return set(p, v)
	case *time.Time:
		return set(p, v)
	case *decimal.Decimal:
		return set(p, v)
	case *float64:
		return set(p, v)
	case *int64:
		return set(p, v)
	case *uint64:
		return set(p, v)
	case *uint8:
		return set(p, v)
	case *int32:
		return set(p, v)
	case *uint32:
		return set(p, v)
	case **decimal.Decimal:
		return setNullable(p, v)
	case **string:
		return setNullable(p, v)
	case **int64:
		return setNullable(p, v)
	case **float64:
		return setNullable(p, v)
	case *[]string:
		return setSlice(p, v)
	case *[]time.Time:
		return setSlice(p, v)
	}
	return fmt.Errorf("no destination of type %T", d)
}

func set[T any](p *T, v any) error {
	x, ok := v.(T)
	if !ok {
		return fmt.Errorf("%T into %T", v, p)
	}
	*p = x
	return nil
}

// setNullable stores a Nullable column's value: nil for NULL.
func setNullable[T any](p **T, v any) error {
	if v == nil {
		*p = nil
		return nil
	}
	var x T
	if err := set(&x, v); err != nil {
		return err
	}
	*p = &x
	return nil
}

func setSlice[T any](p *[]T, v any) error {
	xs, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%T into %T", v, p)
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		if err := set(&out[i], x); err != nil {
			return err
		}
	}
	*p = out
	return nil
}

// decode reads the Native blocks of an answer; zone is the server's time zone.
func decode(b []byte, zone *time.Location) (*Rows, error) {
	d := &reader{b: b, zone: zone}
	r := &Rows{}
	for len(d.b) > 0 {
		cols, n := int(d.uvarint()), int(d.uvarint())
		if d.err != nil {
			break
		}
		if r.names == nil {
			r.names = make([]string, cols)
		}
		if cols != len(r.names) {
			return nil, fmt.Errorf("chhttp: a block of %d columns after %d", cols, len(r.names))
		}
		block := make([][]any, n)
		for i := range block {
			block[i] = make([]any, cols)
		}
		for c := range cols {
			r.names[c] = d.str()
			vs, err := d.column(d.str(), n)
			if err != nil {
				return nil, fmt.Errorf("chhttp: column %s: %w", r.names[c], err)
			}
			for i, v := range vs {
				block[i][c] = v
			}
		}
		r.rows = append(r.rows, block...)
	}
	if d.err != nil {
		return nil, fmt.Errorf("chhttp: answer cut short: %w", d.err)
	}
	return r, nil
}

// reader reads the Native format's primitives; the first error sticks.
type reader struct {
	b    []byte
	err  error
	zone *time.Location
}

func (d *reader) take(n int) []byte {
	if d.err != nil {
		return make([]byte, n)
	}
	if n < 0 || n > len(d.b) {
		d.err = errors.New("unexpected end of answer")
		return make([]byte, max(n, 0))
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *reader) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("bad length")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *reader) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = errors.New("unexpected end of answer")
		return ""
	}
	return string(d.take(int(n)))
}

// column reads n values of type typ.
func (d *reader) column(typ string, n int) ([]any, error) {
	out := make([]any, n)
	if inner, ok := wrapped(typ, "Nullable"); ok {
		nulls := d.take(n)
		vs, err := d.column(inner, n)
		if err != nil {
			return nil, err
		}
		for i := range vs {
			if nulls[i] == 0 {
				out[i] = vs[i]
			}
		}
		return out, d.err
	}
	if inner, ok := wrapped(typ, "Array"); ok {
		ends := make([]int, n)
		for i := range ends {
			ends[i] = int(binary.LittleEndian.Uint64(d.take(8)))
		}
		total := 0
		if n > 0 {
			total = ends[n-1]
		}
		if d.err != nil || total < 0 || total > len(d.b) {
			return nil, errors.New("bad array offsets")
		}
		vs, err := d.column(inner, total)
		if err != nil {
			return nil, err
		}
		start := 0
		for i, end := range ends {
			if end < start || end > total {
				return nil, errors.New("bad array offsets")
			}
			out[i] = vs[start:end:end]
			start = end
		}
		return out, d.err
	}
	read, err := scalar(typ, d.zone)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = read(d)
	}
	return out, d.err
}

// wrapped is T of outer(T).
func wrapped(typ, outer string) (string, bool) {
	if strings.HasPrefix(typ, outer+"(") && strings.HasSuffix(typ, ")") {
		return typ[len(outer)+1 : len(typ)-1], true
	}
	return "", false
}

// scalar is the reader of one value of typ, as the Go type clickhouse-go scans it into: a Date
// at midnight in the server's zone, a DateTime in its type's zone or else the server's.
func scalar(typ string, zone *time.Location) (func(*reader) any, error) {
	le := binary.LittleEndian
	switch typ {
	case "String":
		return func(d *reader) any { return d.str() }, nil
	case "UInt8":
		return func(d *reader) any { return d.take(1)[0] }, nil
	case "UInt32":
		return func(d *reader) any { return le.Uint32(d.take(4)) }, nil
	case "UInt64":
		return func(d *reader) any { return le.Uint64(d.take(8)) }, nil
	case "Int32":
		return func(d *reader) any { return int32(le.Uint32(d.take(4))) }, nil
	case "Int64":
		return func(d *reader) any { return int64(le.Uint64(d.take(8))) }, nil
	case "Float64":
		return func(d *reader) any { return math.Float64frombits(le.Uint64(d.take(8))) }, nil
	case "Date":
		return func(d *reader) any {
			y, m, day := time.Unix(int64(le.Uint16(d.take(2)))*86400, 0).UTC().Date()
			return time.Date(y, m, day, 0, 0, 0, 0, zone)
		}, nil
	}
	if typ == "DateTime" || strings.HasPrefix(typ, "DateTime('") {
		loc := zone
		if tz, ok := wrapped(typ, "DateTime"); ok {
			var err error
			if loc, err = time.LoadLocation(strings.Trim(tz, "'")); err != nil {
				return nil, err
			}
		}
		return func(d *reader) any { return time.Unix(int64(le.Uint32(d.take(4))), 0).In(loc) }, nil
	}
	if args, ok := wrapped(typ, "Decimal"); ok {
		return decimalReader(args)
	}
	return nil, fmt.Errorf("no decoder for type %s", typ)
}

// decimalReader reads Decimal(P, S): an integer of 4, 8 or 16 bytes (by P) scaled by 10^-S.
func decimalReader(args string) (func(*reader) any, error) {
	ps := strings.Split(args, ",")
	if len(ps) != 2 {
		return nil, fmt.Errorf("no decoder for Decimal(%s)", args)
	}
	p, err1 := strconv.Atoi(strings.TrimSpace(ps[0]))
	s, err2 := strconv.Atoi(strings.TrimSpace(ps[1]))
	if err1 != nil || err2 != nil || p > 38 {
		return nil, fmt.Errorf("no decoder for Decimal(%s)", args)
	}
	exp := int32(-s)
	le := binary.LittleEndian
	switch {
	case p <= 9:
		return func(d *reader) any { return decimal.New(int64(int32(le.Uint32(d.take(4)))), exp) }, nil
	case p <= 18:
		return func(d *reader) any { return decimal.New(int64(le.Uint64(d.take(8))), exp) }, nil
	}
	return func(d *reader) any {
		b := d.take(16)
		lo, hi := le.Uint64(b[:8]), int64(le.Uint64(b[8:]))
		v := new(big.Int).Lsh(big.NewInt(hi), 64)
		v.Add(v, new(big.Int).SetUint64(lo))
		return decimal.NewFromBigInt(v, exp)
	}, nil
}
