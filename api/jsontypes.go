package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// encoding/json reports only the first member of the wrong type; typeProblems walks the whole
// body against the target type and names every one ("fields[1]: expected a string, got number"),
// so that a client fixes them in one round.

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// typeProblems lists the members of body (valid JSON) whose type does not fit t.
func typeProblems(body []byte, t reflect.Type) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	var out []string
	walkTypes("", v, t, &out)
	return out
}

func walkTypes(path string, v any, t reflect.Type, out *[]string) {
	if v == nil { // null leaves any member as it is, as encoding/json does
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
			*out = append(*out, unmarshalerProblem(path, err))
		}
		return
	}
	bad := func() {
		*out = append(*out, fmt.Sprintf("%s: expected %s, got %s", memberName(path), jsonKind(t), jsonValueKind(v)))
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			bad()
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if sub, ok := m[name]; ok {
				walkTypes(path+"."+name, sub, f.Type, out)
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			bad()
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			walkTypes(path+"."+k, m[k], t.Elem(), out)
		}
	case reflect.Slice, reflect.Array:
		a, ok := v.([]any)
		if !ok {
			bad()
			return
		}
		for i, sub := range a {
			walkTypes(fmt.Sprintf("%s[%d]", path, i), sub, t.Elem(), out)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			bad()
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			bad()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(json.Number); !ok || !fitsInt(n, t) {
			bad()
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			bad()
		}
	}
}

// fitsInt reports whether n decodes into the integer type t.
func fitsInt(n json.Number, t reflect.Type) bool {
	return json.Unmarshal([]byte(n.String()), reflect.New(t).Interface()) == nil
}

// memberName is a walked path as details name it: "fields[1]", "time.start", "body" for the
// whole body.
func memberName(path string) string {
	if path == "" {
		return "body"
	}
	return strings.TrimPrefix(path, ".")
}

// jsonValueKind names a decoded JSON value's kind as encoding/json's errors do.
func jsonValueKind(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		return "number " + x.String()
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// unmarshalerProblem is the detail line of a member whose own UnmarshalJSON refused it: a type
// error is worded as walkTypes words its own, naming the inner member it names.
func unmarshalerProblem(path string, err error) string {
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		return memberName(path) + ": " + strings.TrimPrefix(err.Error(), strings.TrimPrefix(path, ".")+": ")
	}
	if typ.Field != "" {
		path += "." + typ.Field
	}
	return fmt.Sprintf("%s: expected %s, got %s", memberName(path), jsonKind(typ.Type), typ.Value)
}
