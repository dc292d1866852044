// Package openapi holds mtk's OpenAPI 3.1 document and the reference page that renders it, both
// embedded in the binary: GET /v3/openapi.json serves the document, GET /docs the page.
//
// openapi.yaml is the source. openapi.json, what the binary embeds, is generated from it:
//
//	go test ./api/openapi -run TestJSONIsTheYAML -update
//
// The page is docs.html with docs.css and docs.js, a small renderer of the document (grouped by
// tag: every operation with its credentials, parameters, bodies, examples and errors), filled in
// once at start-up with the document itself: it loads nothing from elsewhere.
//
// The api package's tests check every response they receive against the document, and that the
// server and the document have the same routes; the test server of internal/apitest checks every
// request it handles (both with package conform); this package's tests check that the JSON is the
// YAML, that the document is valid (examples included) and that its enumerations are the code's.
package openapi
