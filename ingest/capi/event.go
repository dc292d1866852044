package capi

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ActionSource is where the conversion happened (Meta's action_source).
type ActionSource string

// Meta's action sources.
const (
	Website         ActionSource = "website"
	App             ActionSource = "app"
	Chat            ActionSource = "chat"
	Email           ActionSource = "email"
	PhoneCall       ActionSource = "phone_call"
	PhysicalStore   ActionSource = "physical_store"
	SystemGenerated ActionSource = "system_generated"
	Other           ActionSource = "other"
)

// ParseActionSource reads an action source, without case and surrounding spaces.
func ParseActionSource(s string) (ActionSource, bool) {
	a := ActionSource(strings.ToLower(strings.TrimSpace(s)))
	if !a.valid() {
		return "", false
	}
	return a, true
}

func (a ActionSource) valid() bool {
	switch a {
	case Website, App, Chat, Email, PhoneCall, PhysicalStore, SystemGenerated, Other:
		return true
	}
	return false
}

// Event is one server event, with Meta's member names.
type Event struct {
	EventName      string       `json:"event_name"`
	EventTime      int64        `json:"event_time"` // Unix seconds
	EventID        string       `json:"event_id,omitempty"`
	ActionSource   ActionSource `json:"action_source"`
	EventSourceURL string       `json:"event_source_url,omitempty"`
	UserData       UserData     `json:"user_data"`
	CustomData     *CustomData  `json:"custom_data,omitempty"`
}

// CustomData is Meta's custom_data.
type CustomData struct {
	Value       *Amount   `json:"value,omitempty"`
	Currency    string    `json:"currency,omitempty"`
	OrderID     string    `json:"order_id,omitempty"`
	ContentIDs  []string  `json:"content_ids,omitempty"`
	ContentType string    `json:"content_type,omitempty"`
	Contents    []Content `json:"contents,omitempty"`
}

// Content is one item of custom_data.contents.
type Content struct {
	ID        string  `json:"id"`
	Quantity  int64   `json:"quantity"`
	ItemPrice *Amount `json:"item_price,omitempty"`
}

// Input is an mtk event or approved order, as NewEvent needs it.
type Input struct {
	EventName    string // config.alpha.name: Purchase, Lead, PageView...
	EventTime    time.Time
	EventID      string // deduplication key; an order's transaction id for its Purchase
	ActionSource ActionSource
	PageURL      string // page.url: event_source_url, and fbclid when there is no _fbc cookie
	Lead         Lead
	Cookies      map[string]string // _fbp and _fbc are read
	ClientIP     string
	UserAgent    string
	ValueCents   *int64
	Currency     string // ISO 4217
	OrderID      string
	Items        []Item
}

// Item is one product of an order.
type Item struct {
	ID             string
	Quantity       int64
	UnitPriceCents *int64
}

// ErrInvalidEvent wraps every reason NewEvent refuses an input. Such an event would be rejected
// by Meta, so it is not worth sending or retrying.
var ErrInvalidEvent = errors.New("capi: event cannot be sent")

// NewEvent builds the server event for in: identity normalized and hashed, browser values as
// they are, money in major units. It refuses an input Meta would reject (see the package
// comment), with an error wrapping ErrInvalidEvent that lists every problem.
func NewEvent(in Input) (Event, error) {
	e := Event{
		EventName:      strings.TrimSpace(in.EventName),
		EventTime:      in.EventTime.Unix(),
		EventID:        strings.TrimSpace(in.EventID),
		ActionSource:   in.ActionSource,
		EventSourceURL: strings.TrimSpace(in.PageURL),
		UserData:       newUserData(in),
		CustomData:     newCustomData(in),
	}
	var problems []string
	if e.EventName == "" {
		problems = append(problems, "event_name is empty")
	}
	if in.EventTime.IsZero() {
		problems = append(problems, "event_time is missing")
	}
	if !e.ActionSource.valid() {
		problems = append(problems, fmt.Sprintf("action_source %q is not one of Meta's", e.ActionSource))
	}
	if e.ActionSource == Website && (e.EventSourceURL == "" || e.UserData.ClientUserAgent == "") {
		problems = append(problems, "a website event needs event_source_url and client_user_agent")
	}
	if e.UserData.isZero() {
		problems = append(problems, "user_data holds no customer information")
	}
	cd := e.CustomData
	if cd != nil && cd.Value != nil && cd.Currency == "" {
		problems = append(problems, "value needs a currency")
	}
	if in.Currency != "" && (cd == nil || cd.Currency == "") {
		problems = append(problems, fmt.Sprintf("currency %q is not an ISO 4217 code", in.Currency))
	}
	for i, it := range in.Items {
		if strings.TrimSpace(it.ID) == "" || it.Quantity < 1 {
			problems = append(problems, fmt.Sprintf("items[%d] needs an id and a quantity of at least 1", i))
		}
	}
	if e.EventName == "Purchase" && (cd == nil || cd.Value == nil || cd.Currency == "") {
		problems = append(problems, "a Purchase needs value and currency")
	}
	if len(problems) > 0 {
		return Event{}, fmt.Errorf("%w: %s", ErrInvalidEvent, strings.Join(problems, "; "))
	}
	return e, nil
}

// newCustomData returns nil when in carries no custom data.
func newCustomData(in Input) *CustomData {
	cd := CustomData{Currency: currency(in.Currency), OrderID: strings.TrimSpace(in.OrderID)}
	if in.ValueCents != nil {
		v := Amount(*in.ValueCents)
		cd.Value = &v
	}
	for _, it := range in.Items {
		c := Content{ID: strings.TrimSpace(it.ID), Quantity: it.Quantity}
		if it.UnitPriceCents != nil {
			p := Amount(*it.UnitPriceCents)
			c.ItemPrice = &p
		}
		cd.Contents = append(cd.Contents, c)
		cd.ContentIDs = append(cd.ContentIDs, c.ID)
	}
	if len(cd.Contents) > 0 {
		cd.ContentType = "product"
	}
	if cd.Value == nil && cd.Currency == "" && cd.OrderID == "" && cd.Contents == nil {
		return nil
	}
	return &cd
}

// currency is the ISO 4217 code in lowercase, as in Meta's examples, or "" when s is not three
// letters.
func currency(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) != 3 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") != "" {
		return ""
	}
	return s
}
