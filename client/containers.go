package client

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// Container is a tracked site. Status is pending, pending_receive_events, valid_receive_events,
// not_receiving_events_p24h or deleted; TrackingCode is nil for a v2 container.
type Container struct {
	ID              string           `json:"id"`
	Domain          string           `json:"domain"`
	Alias           string           `json:"alias"`
	Version         string           `json:"version"`
	TrackingCode    *string          `json:"tracking_code"`
	Status          string           `json:"status"`
	VerifiedDomains []VerifiedDomain `json:"verified_domains"`
	LinkedPixels    []LinkedPixel    `json:"linked_pixels"`
	Triggers        []TriggerSummary `json:"triggers"`
	Metadata        struct {
		AllowedHosts   []string `json:"allowed_hosts"`
		LeadKey        string   `json:"lead_key"`
		HasFunnelSteps bool     `json:"has_funnel_steps"`
		RequireConsent bool     `json:"require_consent"`
	} `json:"metadata"`
	WorkspaceID string     `json:"workspace_id"`
	ProjectID   string     `json:"project_id"`
	LastEventAt *time.Time `json:"last_event_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

// VerifiedDomain is a domain of a container and whether it is verified.
type VerifiedDomain struct {
	Domain string `json:"domain"`
	Status string `json:"status"`
}

// LinkedPixel is a network pixel that a container forwards conversions to.
type LinkedPixel struct {
	Source string `json:"source"`
	ID     string `json:"id"`
	Name   string `json:"name"`
}

// TriggerSummary is a trigger as a container lists it.
type TriggerSummary struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	TriggerType    string `json:"trigger_type"`
	AlphaEventName string `json:"alpha_event_name"`
}

// GetContainer returns a container by its id (ctr_…), v3 tracking code (MTK-…) or v2 domain
// (GET /v3/tracking/containers/{id}, tracking:read).
func (c *Client) GetContainer(ctx context.Context, containerID string, opts ...CallOption) (*Container, error) {
	out := new(Container)
	return done(out, c.call(ctx, request{method: "GET", path: pathOf("/v3/tracking/containers/%s", containerID), safe: true, out: out}, opts))
}

// TriggerTypeAPI is the one trigger type the API creates, replaces and deletes.
const TriggerTypeAPI = "api"

// Trigger fires a conversion: Config.Trigger.Type says when, Config.Name is the event's name in
// reports and Config.Alpha the event sent to the first network.
type Trigger struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Domain      string        `json:"domain"`
	Config      TriggerConfig `json:"config"`
	ContainerID string        `json:"container_id"`
	CreatedAt   time.Time     `json:"created_at"`
	UpdatedAt   time.Time     `json:"updated_at"`
}

// TriggerConfig is what a trigger does.
type TriggerConfig struct {
	Trigger struct {
		Type string `json:"type"`
	} `json:"trigger"`
	Name  string     `json:"name"`
	Alpha AlphaEvent `json:"alpha"`
}

// TriggerInput is an api trigger to create or the whole of one to replace.
type TriggerInput struct {
	Name   string        `json:"name"`
	Config TriggerConfig `json:"config"`
}

// NewAPITrigger is the input of an api trigger named name that reports event and forwards the
// first network's standard event alphaEvent.
func NewAPITrigger(name, event, alphaEvent string) *TriggerInput {
	in := &TriggerInput{Name: name, Config: TriggerConfig{Name: event, Alpha: AlphaEvent{Name: alphaEvent}}}
	in.Config.Trigger.Type = TriggerTypeAPI
	return in
}

// TriggerListParams selects a page of triggers: Page from 1, Limit up to 100 (0: the API's
// defaults, 1 and 50), Type one trigger type ("" for all).
type TriggerListParams struct {
	Page, Limit int
	Type        string
}

// TriggerPage is one page of a container's triggers, oldest first.
type TriggerPage struct {
	Data       []Trigger `json:"data"`
	Pagination struct {
		Page       int `json:"page"`
		Limit      int `json:"limit"`
		Total      int `json:"total"`
		TotalPages int `json:"total_pages"`
	} `json:"pagination"`
}

// ListTriggers returns a page of a container's triggers (GET …/triggers, tracking:read); p may
// be nil.
func (c *Client) ListTriggers(ctx context.Context, containerID string, p *TriggerListParams, opts ...CallOption) (*TriggerPage, error) {
	path := pathOf("/v3/tracking/containers/%s/triggers", containerID)
	if p != nil {
		q := url.Values{}
		if p.Page > 0 {
			q.Set("page", strconv.Itoa(p.Page))
		}
		if p.Limit > 0 {
			q.Set("limit", strconv.Itoa(p.Limit))
		}
		if p.Type != "" {
			q.Set("type", p.Type)
		}
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
	}
	out := new(TriggerPage)
	return done(out, c.call(ctx, request{method: "GET", path: path, safe: true, out: out}, opts))
}

// CreateTrigger creates an api trigger (POST …/triggers, tracking:write, idempotent by key).
func (c *Client) CreateTrigger(ctx context.Context, containerID string, in *TriggerInput, opts ...CallOption) (*Trigger, error) {
	out := new(Trigger)
	return done(out, c.call(ctx, request{method: "POST", path: pathOf("/v3/tracking/containers/%s/triggers", containerID),
		keys: autoKey, in: in, out: out}, opts))
}

// UpdateTrigger replaces an api trigger (PUT …/triggers/{id}, tracking:write).
func (c *Client) UpdateTrigger(ctx context.Context, containerID, triggerID string, in *TriggerInput, opts ...CallOption) (*Trigger, error) {
	out := new(Trigger)
	return done(out, c.call(ctx, request{method: "PUT", path: pathOf("/v3/tracking/containers/%s/triggers/%s", containerID, triggerID),
		keys: autoKey, in: in, out: out}, opts))
}

// DeleteTrigger deletes an api trigger (DELETE …/triggers/{id}, tracking:write).
func (c *Client) DeleteTrigger(ctx context.Context, containerID, triggerID string, opts ...CallOption) error {
	return c.call(ctx, request{method: "DELETE", path: pathOf("/v3/tracking/containers/%s/triggers/%s", containerID, triggerID),
		keys: autoKey}, opts)
}

// LinkInput is a tracking link to a chat: Phone with its country code, Message the prefilled
// text, UTM what a click is attributed to when its URL carries none.
type LinkInput struct {
	Name    string `json:"name"`
	Phone   string `json:"phone"`
	Message string `json:"message"`
	UTM     UTM    `json:"utm"`
}

// Link is a created tracking link; URL is what to publish.
type Link struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	URL  string `json:"url"`
}

// CreateLink creates a tracking link (POST /v3/tracking/links, tracking:write).
func (c *Client) CreateLink(ctx context.Context, in *LinkInput, opts ...CallOption) (*Link, error) {
	out := new(Link)
	return done(out, c.call(ctx, request{method: "POST", path: "/v3/tracking/links", keys: autoKey, in: in, out: out}, opts))
}
