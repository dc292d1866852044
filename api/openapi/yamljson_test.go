package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// yamlToJSON converts the YAML source to indented JSON, keeping the order of every mapping (the
// reference page shows members in the order the source gives). Anchors, aliases and merge keys
// are refused: the source does not use them.
func yamlToJSON(src []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, err
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, fmt.Errorf("want one YAML document")
	}
	var compact bytes.Buffer
	if err := writeJSON(&compact, root.Content[0]); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func writeJSON(w *bytes.Buffer, n *yaml.Node) error {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return fmt.Errorf("line %d: anchors and aliases are not used in the source", n.Line)
	}
	switch n.Kind {
	case yaml.MappingNode:
		w.WriteByte('{')
		for i := 0; i < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if key.Kind != yaml.ScalarNode || key.Tag == "!!merge" {
				return fmt.Errorf("line %d: keys are plain strings", key.Line)
			}
			if i > 0 {
				w.WriteByte(',')
			}
			writeString(w, key.Value)
			w.WriteByte(':')
			if err := writeJSON(w, value); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case yaml.SequenceNode:
		w.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := writeJSON(w, item); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	case yaml.ScalarNode:
		return writeScalar(w, n)
	default:
		return fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return nil
}

func writeScalar(w *bytes.Buffer, n *yaml.Node) error {
	var v any
	switch n.Tag {
	case "!!str":
		writeString(w, n.Value)
		return nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return err
		}
		v = i
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return err
		}
		v = f
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return err
		}
		v = b
	case "!!null":
		v = nil
	default:
		return fmt.Errorf("line %d: %s %q: quote it", n.Line, n.Tag, n.Value)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Write(b)
	return nil
}

// writeString writes s as a JSON string, leaving <, > and & as they are.
func writeString(w *bytes.Buffer, s string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(s)           //nolint:errcheck // a string always encodes
	w.Truncate(w.Len() - 1) // Encode's newline
}
