// Package jsonx is the one JSON encoding of mtk's answers: encoding/json without HTML escaping,
// so that messages keep their < and >, and without encoding/json's trailing newline, so that a
// stored or cached body is the bytes that were sent.
package jsonx

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as every answer body is encoded.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
