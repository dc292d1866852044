package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"mtk/internal/apperr"
)

// encoding/json reports only the first member of the wrong type; typeProblems walks the whole
// body against the target type and names every one ("fields[1]: expected a string, got number"),
// so that a client fixes them in one round. It runs before decoding and reads the body's bytes
// in place, building the line of a problem only while the list has room: a body of 60,000
// members of the wrong type costs neither the map or slice that decoding would fill with them
// nor 60,000 lines (CONTRACT "Hostile input, second pass").

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// errMalformed ends a walk of a body that is not JSON; decoding names what is wrong with it.
var errMalformed = errors.New("api: malformed JSON")

// typeProblems adds to p the members of body (valid JSON) whose type does not fit t, in the
// body's order. Members that t does not have are not looked at, as decoding ignores them.
func typeProblems(body []byte, t reflect.Type, p *apperr.Problems) {
	w := typeWalk{body: body, p: p, fields: map[reflect.Type]map[string]reflect.Type{}}
	w.value(t) //nolint:errcheck // body is valid JSON: an error only ends the walk
}

// typeWalk is one walk of typeProblems: the body and the position in it.
type typeWalk struct {
	body   []byte
	i      int
	p      *apperr.Problems
	path   []step
	fields map[reflect.Type]map[string]reflect.Type // a struct's JSON members, as met
}

// step is one member of the path the walk is in: an object's member (its quoted name, as sent)
// or an array's element.
type step struct {
	key   []byte
	index int
	array bool
}

// name is the member the walk is at, as details name it: "fields[1]", "time.start", "body".
func (w *typeWalk) name() string {
	var b strings.Builder
	for _, s := range w.path {
		switch {
		case s.array:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case b.Len() > 0:
			b.WriteString("." + printableKey(s.key))
		default:
			b.WriteString(printableKey(s.key))
		}
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

// problem adds the problem whose line line builds, building it only while there is room.
func (w *typeWalk) problem(line func() string) {
	if w.p.Full() {
		w.p.Add("")
		return
	}
	w.p.Add(line())
}

// mismatch adds "member: expected <t>, got <got>" when t is a type a JSON value can miss (an
// interface takes any).
func (w *typeWalk) mismatch(t reflect.Type, got func() string) {
	if t.Kind() == reflect.Interface {
		return
	}
	w.problem(func() string { return fmt.Sprintf("%s: expected %s, got %s", w.name(), jsonKind(t), got()) })
}

func (w *typeWalk) space() {
	for w.i < len(w.body) && strings.IndexByte(" \t\r\n", w.body[w.i]) >= 0 {
		w.i++
	}
}

// value walks the value at the position against t.
func (w *typeWalk) value(t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	w.space()
	start := w.i
	if reflect.PointerTo(t).Implements(unmarshaler) {
		if err := w.skip(); err != nil {
			return err
		}
		if raw := w.body[start:w.i]; !bytes.Equal(raw, []byte("null")) { // null leaves a member as it is
			if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
				w.problem(func() string { return unmarshalerProblem(w.name(), err) })
			}
		}
		return nil
	}
	if w.i >= len(w.body) {
		return errMalformed
	}
	kind := t.Kind()
	switch c := w.body[w.i]; {
	case c == '{' && (kind == reflect.Struct || kind == reflect.Map):
		return w.object(t)
	case c == '[' && (kind == reflect.Slice || kind == reflect.Array):
		return w.array(t)
	case c == '{' || c == '[':
		w.mismatch(t, func() string { return map[byte]string{'{': "object", '[': "array"}[c] })
		return w.skip()
	case c == 'n':
		return w.skip()
	case c == '"':
		if kind != reflect.String {
			w.mismatch(t, func() string { return "string" })
		}
		return w.skip()
	case c == 't' || c == 'f':
		if kind != reflect.Bool {
			w.mismatch(t, func() string { return "bool" })
		}
		return w.skip()
	}
	if err := w.skip(); err != nil {
		return err
	}
	num := w.body[start:w.i]
	if !fitsNumber(num, t) {
		w.mismatch(t, func() string { return "number " + string(num) })
	}
	return nil
}

// object walks the object at the position against the struct or map t.
func (w *typeWalk) object(t reflect.Type) error {
	w.i++ // {
	w.path = append(w.path, step{})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for {
		w.space()
		if w.i >= len(w.body) {
			return errMalformed
		}
		switch w.body[w.i] {
		case '}':
			w.i++
			return nil
		case ',':
			w.i++
			continue
		}
		start := w.i
		if err := w.skip(); err != nil {
			return err
		}
		key := w.body[start:w.i]
		w.path[len(w.path)-1].key = key
		if w.space(); w.i >= len(w.body) || w.body[w.i] != ':' {
			return errMalformed
		}
		w.i++
		sub := t.Elem
		if t.Kind() == reflect.Struct {
			sub = func() reflect.Type { return w.member(t, key) }
		}
		var err error
		if s := sub(); s != nil {
			err = w.value(s)
		} else {
			err = w.skip()
		}
		if err != nil {
			return err
		}
	}
}

// array walks the array at the position against the slice or array t.
func (w *typeWalk) array(t reflect.Type) error {
	w.i++ // [
	w.path = append(w.path, step{array: true})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for {
		w.space()
		if w.i >= len(w.body) {
			return errMalformed
		}
		switch w.body[w.i] {
		case ']':
			w.i++
			return nil
		case ',':
			w.i++
			w.path[len(w.path)-1].index++
			continue
		}
		if err := w.value(t.Elem()); err != nil {
			return err
		}
	}
}

// skip moves past the value at the position.
func (w *typeWalk) skip() error {
	w.space()
	if w.i >= len(w.body) {
		return errMalformed
	}
	switch w.body[w.i] {
	case '"':
		end, _, ok := scanJSONString(w.body, w.i)
		if !ok {
			return errMalformed
		}
		w.i = end + 1
		return nil
	case '{', '[':
		for depth := 0; w.i < len(w.body); {
			switch w.body[w.i] {
			case '"':
				end, _, ok := scanJSONString(w.body, w.i)
				if !ok {
					return errMalformed
				}
				w.i = end
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					w.i++
					return nil
				}
			}
			w.i++
		}
		return errMalformed
	}
	for w.i < len(w.body) && strings.IndexByte(",:]} \t\r\n", w.body[w.i]) < 0 { // a literal or number
		w.i++
	}
	return nil
}

// member is the type of struct t's JSON member of the quoted name key, nil when t has none
// (decoding ignores it; a name with escapes is not looked up).
func (w *typeWalk) member(t reflect.Type, key []byte) reflect.Type {
	m, ok := w.fields[t]
	if !ok {
		m = map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			m[name] = f.Type
		}
		w.fields[t] = m
	}
	return m[string(key[1:len(key)-1])]
}

// fitsNumber reports whether the JSON number num decodes into t.
func fitsNumber(num []byte, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Interface:
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(num), 10, 64)
		return err == nil && !reflect.New(t).Elem().OverflowInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(string(num), 10, 64)
		return err == nil && !reflect.New(t).Elem().OverflowUint(n)
	}
	return false
}

// unmarshalerProblem is the detail line of a member whose own UnmarshalJSON refused it: a type
// error is worded as the walk words its own, naming the inner member it names.
func unmarshalerProblem(name string, err error) string {
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		return name + ": " + strings.TrimPrefix(err.Error(), name+": ")
	}
	if typ.Field != "" {
		name += "." + typ.Field
	}
	return fmt.Sprintf("%s: expected %s, got %s", name, jsonKind(typ.Type), typ.Value)
}
