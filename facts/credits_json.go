package facts

import (
	"encoding/json"
	"fmt"
	"time"
)

// orderJourneyJSON is OrderJourney as credit_outbox stores it: its values as an array of
// CreditsFamily.Measures, in their order.
type orderJourneyJSON struct {
	Time     time.Time `json:"time"`
	Currency string    `json:"currency"`
	Values   []int64   `json:"values"`
	Touches  []Touch   `json:"touches,omitempty"`
}

// MarshalJSON encodes o with its values of CreditsFamily.Measures only.
func (o OrderJourney) MarshalJSON() ([]byte, error) {
	vs := make([]int64, len(CreditsFamily.Measures))
	for i, m := range CreditsFamily.Measures {
		vs[i] = o.Values[m]
	}
	return json.Marshal(orderJourneyJSON{Time: o.Time, Currency: o.Currency, Values: vs, Touches: o.Touches})
}

// UnmarshalJSON decodes what MarshalJSON encodes. A row queued before a measure was added to the
// credits has fewer values: the missing ones are 0, as the migration's new column is.
func (o *OrderJourney) UnmarshalJSON(b []byte) error {
	var j orderJourneyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Values) > len(CreditsFamily.Measures) {
		return fmt.Errorf("facts: order journey has %d values, credits have %d measures", len(j.Values),
			len(CreditsFamily.Measures))
	}
	*o = OrderJourney{Time: j.Time, Currency: j.Currency, Touches: j.Touches}
	for i, v := range j.Values {
		o.Values[CreditsFamily.Measures[i]] = v
	}
	return nil
}
