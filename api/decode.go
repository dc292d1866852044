package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
)

// decodeJSON reads the request body into v. An empty or malformed body, or members of the wrong
// type (every one named in details), is a 400 invalid_parameter. The members' types are checked
// before decoding (typeProblems), so that a body of thousands of wrong members never fills v's
// maps and slices with them.
func decodeJSON(c *fiber.Ctx, v any) error {
	body := bytes.TrimSpace(c.Body())
	if len(body) == 0 {
		return apperr.Invalid("The request body is empty; send a JSON object.")
	}
	if body[0] == '{' && json.Valid(body) { // a body of another kind is refused whole by decoding
		var problems apperr.Problems
		if typeProblems(body, reflect.TypeOf(v), &problems); problems.Len() > 0 {
			msg := "A member has the wrong type."
			if problems.Len() > 1 {
				msg = "Members have the wrong type."
			}
			return problems.Invalid(msg)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.Invalid("Malformed JSON: unexpected data after the object.")
	}
	return nil
}

func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return apperr.Invalid(fmt.Sprintf("Malformed JSON at byte %d: %s.", syntax.Offset, syntax.Error()))
	case errors.As(err, &typ):
		member := typ.Field
		if member == "" {
			return apperr.Invalid("The request body must be a JSON object.", fmt.Sprintf("body: expected %s, got %s", jsonKind(typ.Type), typ.Value))
		}
		return apperr.Invalid("A member has the wrong type.", fmt.Sprintf("%s: expected %s, got %s", member, jsonKind(typ.Type), typ.Value))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Invalid("Malformed JSON: the body ends early.")
	}
	return apperr.Invalid("Malformed JSON: " + err.Error())
}

// jsonKind names a Go type the way a JSON client thinks of it.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another type"
}
