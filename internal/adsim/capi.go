package adsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// alpha_ads conversions API: POST /alpha/v19.0/<pixel_id>/events, modelled on Meta's Conversions
// API. A request is checked whole (one bad event refuses it all, as Meta does); accepted events
// are recorded per pixel, and an event whose (event_name, event_id) the pixel already received in
// the last 48 hours is counted as a duplicate instead.

const (
	capiMaxEvents     = 1000
	capiMaxAge        = 7 * 24 * time.Hour
	capiMaxAgeStore   = 62 * 24 * time.Hour // action_source physical_store
	capiFutureSkew    = 5 * time.Minute
	capiDedupWindow   = 48 * time.Hour
	capiSubcodeEvent  = 2804003 // the simulator's error_subcode for an invalid event
	capiSubcodeTooBig = 2804019 // the simulator's error_subcode for more than 1000 events
)

var (
	capiActionSources = []string{"email", "website", "app", "phone_call", "chat", "physical_store", "system_generated", "business_messaging", "other"}
	// capiHashed must be SHA-256 of the normalized value: 64 lower-case hex digits.
	capiHashed = []string{"em", "ph", "fn", "ln", "ge", "db", "ct", "st", "zp", "country"}
	// capiIdentifiers are the user_data members that identify someone (any one is enough).
	capiIdentifiers = append([]string{"external_id", "client_ip_address", "client_user_agent", "fbc", "fbp",
		"subscription_id", "fb_login_id", "lead_id", "madid", "anon_id"}, capiHashed...)
	sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
	decimalRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
)

// CAPIEvent is one accepted conversions event.
type CAPIEvent struct {
	PixelID        string          `json:"pixel_id"`
	EventName      string          `json:"event_name"`
	EventID        string          `json:"event_id"`
	EventTime      time.Time       `json:"event_time"`
	ActionSource   string          `json:"action_source"`
	EventSourceURL string          `json:"event_source_url,omitempty"`
	TestEventCode  string          `json:"test_event_code,omitempty"`
	ReceivedAt     time.Time       `json:"received_at"`
	Raw            json.RawMessage `json:"raw"` // the event as sent
}

// CAPILog is what one pixel received: unique events in order of arrival, and how many more
// arrived as duplicates.
type CAPILog struct {
	PixelID    string      `json:"pixel_id"`
	Received   int         `json:"received"`
	Duplicates int         `json:"duplicates"`
	Events     []CAPIEvent `json:"events"`
}

type capiStore struct {
	mu         sync.Mutex
	events     map[string][]CAPIEvent // by pixel
	seen       map[string]time.Time   // pixel|event_name|event_id: first received
	received   map[string]int
	duplicates map[string]int
}

// CAPIEvents returns what pixelID has received so far.
func (s *Sim) CAPIEvents(pixelID string) CAPILog {
	s.capi.mu.Lock()
	defer s.capi.mu.Unlock()
	return CAPILog{PixelID: pixelID, Received: s.capi.received[pixelID], Duplicates: s.capi.duplicates[pixelID],
		Events: append([]CAPIEvent{}, s.capi.events[pixelID]...)}
}

func (s *Sim) capiEvents(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	d := alphaDialect{}
	pixel := r.PathValue("node")
	if pixel != a.pixelID {
		d.writeError(w, alphaMissing(pixel), trace)
		return
	}
	p := alphaParams(r)
	now := s.cfg.Clock.Now()
	var data []json.RawMessage
	if err := json.Unmarshal([]byte(p.Get("data")), &data); err != nil || len(data) == 0 {
		d.writeError(w, &apiErr{kind: errInvalid, msg: "The parameter data is required: a non-empty JSON array of events"}, trace)
		return
	}
	if len(data) > capiMaxEvents {
		d.writeError(w, &apiErr{kind: errInvalid, sub: capiSubcodeTooBig,
			msg: fmt.Sprintf("data: at most %d events per request, got %d", capiMaxEvents, len(data))}, trace)
		return
	}
	events := make([]CAPIEvent, len(data))
	for i, raw := range data {
		ev, err := capiCheck(raw, now)
		if err != nil {
			d.writeError(w, &apiErr{kind: errInvalid, sub: capiSubcodeEvent, msg: fmt.Sprintf("data[%d]: %v", i, err)}, trace)
			return
		}
		ev.PixelID, ev.TestEventCode, ev.ReceivedAt = pixel, p.Get("test_event_code"), now
		events[i] = ev
	}
	s.capi.record(events)
	writeJSON(w, http.StatusOK, map[string]any{"events_received": len(events), "messages": []string{}, "fbtrace_id": trace})
}

// record stores accepted events, counting duplicates apart.
func (c *capiStore) record(events []CAPIEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.events, c.seen = map[string][]CAPIEvent{}, map[string]time.Time{}
		c.received, c.duplicates = map[string]int{}, map[string]int{}
	}
	for _, ev := range events {
		c.received[ev.PixelID]++
		key := ev.PixelID + "|" + ev.EventName + "|" + ev.EventID
		if first, ok := c.seen[key]; ok && ev.ReceivedAt.Sub(first) < capiDedupWindow {
			c.duplicates[ev.PixelID]++
			continue
		}
		c.seen[key] = ev.ReceivedAt
		c.events[ev.PixelID] = append(c.events[ev.PixelID], ev)
	}
}

// capiCheck validates one event as Meta does and returns it parsed.
func capiCheck(raw json.RawMessage, now time.Time) (CAPIEvent, error) {
	var e map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil || e == nil {
		return CAPIEvent{}, fmt.Errorf("each event must be a JSON object")
	}
	str := func(k string) string { v, _ := e[k].(string); return strings.TrimSpace(v) }
	ev := CAPIEvent{EventName: str("event_name"), EventID: str("event_id"), ActionSource: str("action_source"),
		EventSourceURL: str("event_source_url"), Raw: raw}
	for _, k := range []string{"event_name", "event_time", "action_source", "user_data", "event_id"} {
		if v, ok := e[k]; !ok || v == nil || v == "" {
			return ev, fmt.Errorf("the member %s is required", k)
		}
	}
	if ev.EventName == "" || ev.EventID == "" {
		return ev, fmt.Errorf("event_name and event_id must be non-empty strings")
	}
	if !slices.Contains(capiActionSources, ev.ActionSource) {
		return ev, fmt.Errorf("action_source %q: want one of %s", ev.ActionSource, strings.Join(capiActionSources, ", "))
	}
	secs, err := strconv.ParseInt(fmt.Sprint(e["event_time"]), 10, 64)
	if err != nil {
		return ev, fmt.Errorf("event_time must be an integer Unix timestamp in seconds")
	}
	ev.EventTime = time.Unix(secs, 0).UTC()
	maxAge := capiMaxAge
	if ev.ActionSource == "physical_store" {
		maxAge = capiMaxAgeStore
	}
	switch {
	case ev.EventTime.Before(now.Add(-maxAge)):
		return ev, fmt.Errorf("event_time %d is more than %d days in the past", secs, int(maxAge.Hours()/24))
	case ev.EventTime.After(now.Add(capiFutureSkew)):
		return ev, fmt.Errorf("event_time %d is in the future", secs)
	}
	ud, ok := e["user_data"].(map[string]any)
	if !ok {
		return ev, fmt.Errorf("user_data must be an object")
	}
	if err := capiUserData(ud); err != nil {
		return ev, err
	}
	if ev.ActionSource == "website" && (ev.EventSourceURL == "" || ud["client_user_agent"] == nil) {
		return ev, fmt.Errorf("website events require event_source_url and user_data.client_user_agent")
	}
	if cd, present := e["custom_data"]; present {
		if err := capiCustomData(cd); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

// capiUserData checks that user_data identifies someone and that hashed members are hashed.
func capiUserData(ud map[string]any) error {
	found := false
	for _, k := range capiIdentifiers {
		vals, err := stringsOf(ud[k])
		if err != nil {
			return fmt.Errorf("user_data.%s: %v", k, err)
		}
		if len(vals) > 0 {
			found = true
		}
		if slices.Contains(capiHashed, k) {
			for _, v := range vals {
				if !sha256Hex.MatchString(v) {
					return fmt.Errorf("user_data.%s must be hashed: SHA-256 as 64 lower-case hex digits", k)
				}
			}
		}
	}
	if !found {
		return fmt.Errorf("user_data must contain at least one customer information parameter (%s)", strings.Join(capiIdentifiers, ", "))
	}
	return nil
}

// stringsOf reads a member that is a string or an array of strings; empty strings are dropped.
func stringsOf(v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		if x == "" {
			return nil, nil
		}
		return []string{x}, nil
	case []any:
		var out []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want a string or an array of strings")
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a string or an array of strings")
}

// capiCustomData checks the members of custom_data the simulator knows.
func capiCustomData(v any) error {
	cd, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("custom_data must be an object")
	}
	if val, ok := cd["value"]; ok {
		if !decimalRE.MatchString(fmt.Sprint(val)) {
			return fmt.Errorf("custom_data.value must be a number")
		}
	}
	if cur, ok := cd["currency"]; ok {
		if s, _ := cur.(string); len(s) != 3 {
			return fmt.Errorf("custom_data.currency must be a three-letter ISO 4217 code")
		}
	}
	return nil
}
