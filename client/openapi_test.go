package client

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"mtk/api/openapi"
)

// TestTypesCoverTheDocument walks the OpenAPI document's schemas of the query body, its answer,
// explain's answer and GET /v3/fields against the client's types: every documented member,
// at any depth, must be a member of the type (by its JSON name), so that no documented member
// needs a raw map and the client cannot fall behind the document again.
func TestTypesCoverTheDocument(t *testing.T) {
	var doc document
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	for name, typ := range map[string]reflect.Type{
		"QueryRequest":     reflect.TypeFor[queryBody](),
		"QueryResult":      reflect.TypeFor[QueryResult](),
		"QueryExplanation": reflect.TypeFor[Explanation](),
		"FieldList":        reflect.TypeFor[FieldList](),
	} {
		s, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("the document has no schema %s", name)
			continue
		}
		for _, p := range doc.cover(name, s, typ) {
			t.Error(p)
		}
	}
}

// TestCoverFindsAMissingMember proves the walk: a member missing at depth, a map without the
// accessor of a documented member and an array read as a scalar are each reported.
func TestCoverFindsAMissingMember(t *testing.T) {
	var doc document
	err := json.Unmarshal([]byte(`{"components":{"schemas":{
		"Inner": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
		"Outer": {"type": "object", "properties": {
			"inner": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Inner"}]},
			"list": {"type": "array", "items": {"$ref": "#/components/schemas/Inner"}},
			"rows": {"type": "array", "items": {"type": "object", "properties": {"compare": {}, "total": {}}}},
			"tags": {"type": "array", "items": {"type": "string"}}}}}}}`), &doc)
	if err != nil {
		t.Fatal(err)
	}
	type inner struct {
		A string `json:"a"`
	}
	type outer struct {
		Inner *inner  `json:"inner"`
		List  []inner `json:"list"`
		Rows  []Row   `json:"rows"`
		Tags  string  `json:"tags"`
	}
	got := doc.cover("Outer", doc.Components.Schemas["Outer"], reflect.TypeFor[outer]())
	want := []string{
		`Outer.inner: the document's member "b" is not a member of client.inner`,
		`Outer.list[]: the document's member "b" is not a member of client.inner`,
		`Outer.rows[]: the document's member "total" has no method Total of client.Row`,
		`Outer.tags: the document says array; client's type is string`,
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// document is the part of an OpenAPI document the walk reads.
type document struct {
	Components struct {
		Schemas map[string]*schema `json:"schemas"`
	} `json:"components"`
}

// schema is the part of a JSON schema the walk reads: the members of objects, the items of
// arrays, references and alternatives.
type schema struct {
	Ref        string             `json:"$ref"`
	Type       any                `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Items      *schema            `json:"items"`
	OneOf      []*schema          `json:"oneOf"`
	AnyOf      []*schema          `json:"anyOf"`
	AllOf      []*schema          `json:"allOf"`
}

// cover returns a problem for each member of s (at path) that typ cannot hold. A struct must
// have a member of each documented one's JSON name; a map, whose keys are open (a row), a method
// named for it (compare: Row.Compare); a slice the items. Alternatives are each walked against
// the same type.
func (d *document) cover(path string, s *schema, typ reflect.Type) []string {
	if s == nil {
		return nil
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
		return d.cover(path, d.Components.Schemas[name], typ)
	}
	mapType := typ
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	var problems []string
	for _, alt := range slices.Concat(s.OneOf, s.AnyOf, s.AllOf) {
		problems = append(problems, d.cover(path, alt, mapType)...)
	}
	if s.Items != nil || s.Type == "array" {
		if typ.Kind() != reflect.Slice && typ.Kind() != reflect.Array {
			return append(problems, path+": the document says array; client's type is "+typ.String())
		}
		return append(problems, d.cover(path+"[]", s.Items, typ.Elem())...)
	}
	if len(s.Properties) == 0 {
		return problems
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	switch typ.Kind() {
	case reflect.Struct:
		fields := jsonFields(typ)
		for _, name := range names {
			f, ok := fields[name]
			if !ok {
				problems = append(problems, path+": the document's member \""+name+"\" is not a member of "+typ.String())
				continue
			}
			problems = append(problems, d.cover(path+"."+name, s.Properties[name], f.Type)...)
		}
	case reflect.Map:
		for _, name := range names {
			if _, ok := mapType.MethodByName(camel(name)); !ok {
				problems = append(problems, path+": the document's member \""+name+"\" has no method "+camel(name)+" of "+mapType.String())
			}
		}
	default:
		problems = append(problems, path+": the document says object; client's type is "+typ.String())
	}
	return problems
}

// jsonFields are a struct's exported fields by the name encoding/json gives them.
func jsonFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(typ) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// camel turns a member's snake_case name into a Go method's name: compare_time → CompareTime.
func camel(name string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(name, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}
