package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// QueryInput is the body of POST /v3/query.
type QueryInput struct {
	ProjectID     string    `json:"project_id"`
	Fields        []string  `json:"fields"`
	Source        string    `json:"source,omitempty"`
	ConnectionIDs []string  `json:"connection_ids,omitempty"`
	Time          *TimeSpec `json:"time,omitempty"`
	Filters       []Filter  `json:"filters,omitempty"`
	Order         Order     `json:"order,omitempty"`
	// Limit and Offset are pointers so that an explicit 0 is told apart from an absent member.
	Limit    *int      `json:"limit,omitempty"`
	Offset   *int      `json:"offset,omitempty"`
	Metadata *Metadata `json:"metadata,omitempty"`
	// Total asks for total_rows, the rows before limit and offset.
	Total bool `json:"total,omitempty"`

	checked bool // passed Validate (Check), so the engine does not validate it again
	// digest is the SHA-256 of the checked body's JSON (Check), which prepareKey hashes instead
	// of encoding the body at every request; zero when it could not be encoded. Like checked,
	// it holds because a checked input is not changed (compareInput makes an unchecked copy).
	digest [sha256.Size]byte
}

// TimeSpec is the query's time range (start and end, or a named range) and optional bucket size.
type TimeSpec struct {
	Start       string   `json:"start,omitempty"`
	End         string   `json:"end,omitempty"`
	Range       string   `json:"range,omitempty"`
	Granularity string   `json:"granularity,omitempty"`
	Compare     *Compare `json:"compare,omitempty"`
}

// Filter restricts the data: a dimension filter before aggregation, a metric filter after.
type Filter struct {
	Member   string   `json:"member"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Metadata holds the entity level, the traffic and order dimensions that key the rows, the
// currency override and the revenue basis. Dimensions given, even empty, choose the traffic view
// (trafficReason), so an empty list is told apart from none: it decodes and encodes as [].
type Metadata struct {
	Level             string   `json:"level,omitempty"`
	Dimensions        []string `json:"dimensions,omitzero"`
	ConvertToCurrency string   `json:"convert_to_currency,omitempty"`
	Revenue           string   `json:"revenue,omitempty"`
	// Attribution credits order metrics by a model (attribution.go).
	Attribution *Attribution `json:"attribution,omitempty"`
}

// OrderKey is one member of the order object: a field or row key and its direction.
type OrderKey struct {
	Field     string
	Direction string
}

// Order is the order object with its members in the order the client wrote them: the first
// member sorts first.
type Order []OrderKey

// UnmarshalJSON reads a JSON object keeping the order of its members.
func (o *Order) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*o = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("order: want an object of field to \"asc\" or \"desc\"")
	}
	var out Order
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var dir string
		if err := dec.Decode(&dir); err != nil {
			return fmt.Errorf("order.%s: want \"asc\" or \"desc\"", key)
		}
		out = append(out, OrderKey{Field: key, Direction: dir})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*o = out
	return nil
}

// MarshalJSON writes the order as an object, members in order.
func (o Order) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k.Field)
		vb, _ := json.Marshal(k.Direction)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (in QueryInput) level() string {
	if in.Metadata == nil {
		return ""
	}
	return in.Metadata.Level
}

func (in QueryInput) granularity() string {
	if in.Time == nil {
		return ""
	}
	return in.Time.Granularity
}

func (in QueryInput) convertTo() string {
	if in.Metadata == nil {
		return ""
	}
	return in.Metadata.ConvertToCurrency
}

func (in QueryInput) dimensions() []string {
	if in.Metadata == nil {
		return nil
	}
	return in.Metadata.Dimensions
}

func (in QueryInput) revenue() string {
	if in.Metadata == nil {
		return ""
	}
	return in.Metadata.Revenue
}
