package answers

import (
	"mtk/engine"
	"mtk/internal/jsonx"
)

// encodeResult is the answer of POST /v3/query: {success, data, currency, view, warnings, has_more,
// total_rows (asked with total), time (a named range's dates), compare_time}. The rows are
// appended by engine.Row.AppendJSON, since encoding/json would check again every byte a row's
// MarshalJSON wrote; the bytes are those encoding/json writes.
func encodeResult(res *engine.Result) ([]byte, error) {
	// Rows of a level with names and a few metrics take about 250 bytes: one allocation.
	b := make([]byte, 0, 128+256*len(res.Data))
	b = append(b, `{"success":true,"data":[`...)
	for i, r := range res.Data {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = r.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	rest, err := jsonx.Marshal(struct {
		Currency    string        `json:"currency"`
		View        string        `json:"view"`
		Warnings    []string      `json:"warnings"`
		HasMore     bool          `json:"has_more"`
		TotalRows   *uint64       `json:"total_rows,omitempty"`
		Time        *engine.Dates `json:"time,omitempty"`
		CompareTime *engine.Dates `json:"compare_time,omitempty"`
	}{res.Currency, res.View, res.Warnings, res.HasMore, res.TotalRows, res.Time, res.CompareTime})
	if err != nil {
		return nil, err
	}
	b = append(b, "],"...)
	return append(b, rest[1:]...), nil
}
