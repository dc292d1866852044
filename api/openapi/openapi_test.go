package openapi

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

var update = flag.Bool("update", false, "rewrite openapi.json from openapi.yaml")

// TestJSONIsTheYAML checks that the embedded openapi.json is openapi.yaml converted; with
// -update it rewrites openapi.json.
func TestJSONIsTheYAML(t *testing.T) {
	src, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := yamlToJSON(src)
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(Document(), want) {
		t.Fatal("openapi.json is not openapi.yaml converted: run go test ./api/openapi -run TestJSONIsTheYAML -update")
	}
}

// load parses the embedded document.
func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(Document())
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	return doc
}

// TestDocumentIsValid validates the document as OpenAPI 3.1, with every example against its
// schema, and checks what the reference page relies on: each operation has an id, a summary, a
// declared tag and described responses.
func TestDocumentIsValid(t *testing.T) {
	doc := load(t)
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
	tags := map[string]bool{}
	for _, tag := range doc.Tags {
		tags[tag.Name] = true
	}
	ids := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			at := method + " " + path
			if op.OperationID == "" || ids[op.OperationID] {
				t.Errorf("%s: missing or repeated operationId %q", at, op.OperationID)
			}
			ids[op.OperationID] = true
			if op.Summary == "" || len(op.Tags) != 1 || !tags[op.Tags[0]] {
				t.Errorf("%s: wants a summary and one declared tag, has %q %v", at, op.Summary, op.Tags)
			}
			if op.Security == nil {
				t.Errorf("%s: says nothing of its credentials (security: [] for none)", at)
			}
		}
	}
}
