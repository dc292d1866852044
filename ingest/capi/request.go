package capi

import (
	"encoding/json"
	"fmt"
)

// MaxBatch is the most events Meta accepts in one request.
const MaxBatch = 1000

// request is the body of POST /{pixel id}/events.
type request struct {
	Data          []Event `json:"data"`
	TestEventCode string  `json:"test_event_code,omitempty"`
}

// Body is the JSON body of one request: {"data":[...]} with test_event_code when it is not
// empty (events then show in Events Manager's Test Events and are not used for ads). It refuses
// an empty batch or one larger than MaxBatch.
func Body(events []Event, testEventCode string) ([]byte, error) {
	if len(events) == 0 || len(events) > MaxBatch {
		return nil, fmt.Errorf("capi: a request holds 1 to %d events, not %d", MaxBatch, len(events))
	}
	return json.Marshal(request{Data: events, TestEventCode: testEventCode})
}
