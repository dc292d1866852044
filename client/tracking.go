package client

import (
	"context"
	"encoding/json"
	"net/url"
	"time"
)

// The event sources; others are read as EventSourceAPI.
const (
	EventSourceAPI      = "api"
	EventSourceWhatsApp = "whatsapp"
	EventSourceWebsite  = "website"
)

// Event is a tracking event. Config names it; everything else is optional.
type Event struct {
	// Domain picks the container: required by TrackPublicEvent, optional with a key.
	Domain string      `json:"domain,omitempty"`
	Config EventConfig `json:"config"`
	// Source is EventSourceAPI (default), EventSourceWhatsApp or EventSourceWebsite.
	Source string `json:"source,omitempty"`
	// EventID (1 to 100 of [A-Za-z0-9._:@/+=-]) is generated when empty.
	EventID string `json:"event_id,omitempty"`
	// Timestamp is Unix seconds, within the last 90 days; 0 means now.
	Timestamp int64             `json:"timestamp,omitempty"`
	Lead      *Lead             `json:"lead,omitempty"`
	Cookies   map[string]string `json:"cookies,omitempty"`
	UTM       *UTM              `json:"utm,omitempty"`
	Page      *Page             `json:"page,omitempty"`
	// Value is in cents of Currency (the project's when empty).
	Value      *int64         `json:"value,omitempty"`
	Currency   string         `json:"currency,omitempty"`
	Properties map[string]any `json:"properties,omitempty"`
	// ClickID is the tracking-link click that brought the person (DecodedMessage.DecodedID of the
	// chat message they sent): the click becomes a touch of their lead; 0 means none.
	ClickID int64 `json:"click_id,omitempty"`
}

// EventConfig names an event: Name for reports, Alpha to also forward it to the first network.
type EventConfig struct {
	Name  string      `json:"name,omitempty"`
	Alpha *AlphaEvent `json:"alpha,omitempty"`
}

// AlphaEvent is the conversion forwarded to the first network: a standard event name (Lead,
// Purchase, PageView, …) unless TrackCustom. SourceKey is its action source (website, app,
// chat, …).
type AlphaEvent struct {
	Name        string `json:"name"`
	SourceKey   string `json:"sourceKey,omitempty"`
	TrackCustom bool   `json:"track_custom,omitempty"`
}

// Lead identifies a person: an e-mail, a phone or a document makes (or finds) a lead.
type Lead struct {
	Email      string `json:"email,omitempty"`
	Phone      string `json:"phone,omitempty"`
	Document   string `json:"document,omitempty"`
	Name       string `json:"name,omitempty"`
	FirstName  string `json:"first_name,omitempty"`
	LastName   string `json:"last_name,omitempty"`
	ExternalID string `json:"external_id,omitempty"`
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	Zip        string `json:"zip,omitempty"`
	Country    string `json:"country,omitempty"`
}

// UTM are the parameters that attribute an event or an order to an ad: utm_campaign, utm_medium
// and utm_content as "<name>|<id>" of a campaign, ad set and ad.
type UTM struct {
	Source   string `json:"utm_source,omitempty"`
	Medium   string `json:"utm_medium,omitempty"`
	Campaign string `json:"utm_campaign,omitempty"`
	Content  string `json:"utm_content,omitempty"`
	Term     string `json:"utm_term,omitempty"`
}

// Page is where a browser event happened; the URL's query gives the UTM when UTM is nil.
type Page struct {
	URL      string `json:"url,omitempty"`
	Referrer string `json:"referrer,omitempty"`
}

// EventResult is the answer to a tracked event. LeadID is nil when the event names no one.
type EventResult struct {
	Success   bool    `json:"success"`
	EventID   string  `json:"event_id"`
	LeadID    *string `json:"lead_id"`
	Timestamp int64   `json:"timestamp"`
}

func (c *Client) trackEvent(ctx context.Context, path string, acc access, ev *Event, opts []CallOption) (*EventResult, error) {
	out := new(EventResult)
	return done(out, c.call(ctx, request{method: "POST", path: path, access: acc, keys: autoKey, in: ev, out: out}, opts))
}

// TrackEvent records an event for the credential's workspace (POST /v3/tracking/events with an
// API key holding tracking:write): its container is the one that takes ev.Domain, else the
// workspace's first. It takes an Idempotency-Key.
func (c *Client) TrackEvent(ctx context.Context, ev *Event, opts ...CallOption) (*EventResult, error) {
	return c.trackEvent(ctx, "/v3/tracking/events", withCredential, ev, opts)
}

// TrackPublicEvent records an event without a credential, as a browser does: ev.Domain must be
// a live container's domain or allowed host. Calls count against the caller's IP.
func (c *Client) TrackPublicEvent(ctx context.Context, ev *Event, opts ...CallOption) (*EventResult, error) {
	return c.trackEvent(ctx, "/v3/tracking/events", anonymous, ev, opts)
}

// TrackContainerEvent records an event for the container named by its id, tracking code or v2
// domain (POST /v3/tracking/containers/{id}/events).
func (c *Client) TrackContainerEvent(ctx context.Context, containerID string, ev *Event, opts ...CallOption) (*EventResult, error) {
	return c.trackEvent(ctx, pathOf("/v3/tracking/containers/%s/events", containerID), withCredential, ev, opts)
}

// The transaction statuses.
const (
	TransactionPending    = "pending"
	TransactionApproved   = "approved"
	TransactionFailed     = "failed"
	TransactionRefunded   = "refunded"
	TransactionChargeback = "chargeback"
)

// Transaction is an order. Money is in cents of Currency (the project's when empty).
type Transaction struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Value  int64  `json:"value"`
	// UpdatedAt orders the versions of one transaction (the newest wins); zero means CreatedAt.
	CreatedAt          time.Time `json:"created_at,omitzero"`
	UpdatedAt          time.Time `json:"updated_at,omitzero"`
	Currency           string    `json:"currency,omitempty"`
	CommissionValue    *int64    `json:"commission_value,omitempty"`
	CommissionCurrency string    `json:"commission_currency,omitempty"`
	Customer           *Customer `json:"customer,omitempty"`
	UTM                *UTM      `json:"utm,omitempty"`
	// Src and Sck may carry the lead's id.
	Src   string `json:"src,omitempty"`
	Sck   string `json:"sck,omitempty"`
	Items []Item `json:"items,omitempty"`
	// ProductCost defaults to the sum of the items' costs.
	ProductCost *int64 `json:"product_cost,omitempty"`
}

// Customer is who bought; the e-mail, phone or document finds the lead.
type Customer struct {
	Email    string `json:"email,omitempty"`
	Phone    string `json:"phone,omitempty"`
	Document string `json:"document,omitempty"`
	Name     string `json:"name,omitempty"`
}

// Item is a product line of an order; Cost is the line's cost (every unit), in cents.
type Item struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Quantity  int64  `json:"quantity"`
	UnitPrice *int64 `json:"unit_price,omitempty"`
	Cost      *int64 `json:"cost,omitempty"`
}

// OrderWebhook sends an order to a custom connection's webhook (POST /v2/tracking/generic?k=):
// webhookKey is the k of the connection's WebhookURL, the only credential sent. Transactions are
// upserted by id, so sending one twice is harmless.
func (c *Client) OrderWebhook(ctx context.Context, webhookKey string, tx *Transaction, opts ...CallOption) error {
	in := struct {
		Transaction *Transaction `json:"transaction"`
	}{tx}
	return c.call(ctx, request{method: "POST", path: "/v2/tracking/generic?k=" + url.QueryEscape(webhookKey),
		access: anonymous, safe: true, in: in}, opts)
}

// DecodedMessage is what a message's invisible tracking marker says. An untracked message has
// nil DecodedID, Params and TrackingLinkID, and DecodedText equal to Text.
type DecodedMessage struct {
	Text           string          `json:"text"`
	DecodedText    string          `json:"decoded_text"`
	DecodedID      *int64          `json:"decoded_id"`
	Params         *UTM            `json:"params"`
	TrackingLinkID *string         `json:"tracking_link_id"`
	SelectedTarget json.RawMessage `json:"selected_target"`
}

// DecodeMessages finds the tracking link click in each of 1 to 100 chat messages (POST
// /v3/tracking/messages/decode, tracking:read); the answers are in the texts' order.
func (c *Client) DecodeMessages(ctx context.Context, texts []string, opts ...CallOption) ([]DecodedMessage, error) {
	type message struct {
		Text string `json:"text"`
	}
	var in struct {
		Messages []message `json:"messages"`
	}
	in.Messages = make([]message, len(texts))
	for i, t := range texts {
		in.Messages[i].Text = t
	}
	var out struct {
		Messages []DecodedMessage `json:"messages"`
	}
	if err := c.call(ctx, request{method: "POST", path: "/v3/tracking/messages/decode", safe: true, in: in, out: &out}, opts); err != nil {
		return nil, err
	}
	return out.Messages, nil
}
