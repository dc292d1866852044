package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
	"mtk/ingest/leads"
	"mtk/internal/apperr"
	"mtk/internal/ids"
	"mtk/platform/utm"
)

// Input is the body of POST /v3/tracking/events (and its aliases).
type Input struct {
	Domain     string            `json:"domain"`
	Config     EventConfig       `json:"config"`
	Source     string            `json:"source"`
	EventID    string            `json:"event_id"`
	Timestamp  *int64            `json:"timestamp"`
	Lead       leads.Identity    `json:"lead"`
	Cookies    map[string]string `json:"cookies"`
	UTM        utm.Params        `json:"utm"`
	Page       Page              `json:"page"`
	Value      *int64            `json:"value"`
	Currency   string            `json:"currency"`
	Properties json.RawMessage   `json:"properties"`
	Metadata   Metadata          `json:"metadata"`
	// ClickID is the tracking-link click that brought the event's person (decode's decoded_id of
	// the chat message they sent): the click becomes their lead's.
	ClickID *int64 `json:"click_id"`
}

// EventConfig names the event: Name for reports, Alpha for the first network (absent: the event
// is recorded but not forwarded).
type EventConfig struct {
	Name  string       `json:"name"`
	Alpha *AlphaConfig `json:"alpha"`
}

// AlphaConfig is the conversion sent to the first network.
type AlphaConfig struct {
	Name string `json:"name"`
	// SourceKey is the conversion's action_source (website, app, chat, email, phone_call,
	// physical_store, system_generated, other).
	SourceKey   string `json:"sourceKey"`
	TrackCustom bool   `json:"track_custom"`
}

// Page is where a browser event happened.
type Page struct {
	URL      string `json:"url"`
	Referrer string `json:"referrer"`
	Title    string `json:"title"`
}

// Metadata is what the container's script (package tag) says of the browser: LeadKey is the
// value of its lead key cookie (the container's metadata.lead_key), the same for every event of
// one browser. It is kept with the event's body (ClickHouse events.body); leads are still found
// by e-mail, phone and document only.
type Metadata struct {
	LeadKey string `json:"lead_key"`
}

// The event sources of the spec; anything else is SourceAPI.
const (
	SourceAPI      = "api"
	SourceWhatsApp = "whatsapp"
	SourceWebsite  = "website"
)

// Limits of an event body.
const (
	maxPast       = 90 * 24 * time.Hour
	maxFuture     = 10 * time.Minute
	maxCookies    = 50
	maxText       = 255
	maxURL        = 4096
	maxProperties = 16 << 10
	maxValue      = 1_000_000_000_000 // cents
)

var eventIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:@/+=-]{1,100}$`)

// Meta is what the request itself says about the event.
type Meta struct {
	ClientIP  string
	UserAgent string
	// Receipt, when set, is the record of the request's Idempotency-Key: the event's answer is
	// written to it in the batch's transaction.
	Receipt Receipt
}

// Receipt is what the batch needs of an idempotency record (api/idempotency.Receipt): the
// answer is queued in the batch's transaction, so that a crash leaves the event and its record
// both or neither, and Answered is told once the batch commits.
type Receipt interface {
	QueueAnswer(b *pgx.Batch, v any) error
	Answered()
}

// normalize validates in at now (naming every problem) and fills its defaults: a generated
// event id, the current time, the api source.
func (in Input) normalize(now time.Time) (Input, error) {
	var bad, missing []string
	if in.EventID = strings.TrimSpace(in.EventID); in.EventID == "" {
		in.EventID = ids.New(ids.Event)
	} else if !eventIDPattern.MatchString(in.EventID) {
		bad = append(bad, "event_id: 1 to 100 characters among letters, digits and ._:@/+=-")
	}
	switch in.Source = strings.ToLower(strings.TrimSpace(in.Source)); in.Source {
	case SourceAPI, SourceWhatsApp, SourceWebsite:
	default:
		in.Source = SourceAPI
	}
	if in.Timestamp == nil {
		ts := now.Unix()
		in.Timestamp = &ts
	} else if t := time.Unix(*in.Timestamp, 0); t.Before(now.Add(-maxPast)) || t.After(now.Add(maxFuture)) {
		bad = append(bad, "timestamp: Unix seconds within the last 90 days and at most 10 minutes ahead")
	}
	in.Config.Name = strings.TrimSpace(in.Config.Name)
	if a := in.Config.Alpha; a != nil {
		a.Name = strings.TrimSpace(a.Name)
		if a.Name == "" {
			missing = append(missing, "config.alpha.name: required when config.alpha is sent")
		} else if utf8.RuneCountInString(a.Name) > 50 {
			bad = append(bad, "config.alpha.name: at most 50 characters")
		}
		if a.SourceKey != "" {
			if _, ok := capi.ParseActionSource(a.SourceKey); !ok {
				bad = append(bad, fmt.Sprintf("config.alpha.sourceKey: %q is not one of website, app, chat, email, phone_call, physical_store, system_generated, other", a.SourceKey))
			}
		}
	}
	if in.Config.Name == "" && (in.Config.Alpha == nil || in.Config.Alpha.Name == "") {
		missing = append(missing, "config.name: required (or config.alpha.name)")
	} else if utf8.RuneCountInString(in.Config.Name) > 100 {
		bad = append(bad, "config.name: at most 100 characters")
	}
	bad = append(bad, checkLead(in.Lead)...)
	bad = append(bad, in.UTM.Problems("utm")...)
	if len(in.Cookies) > maxCookies {
		bad = append(bad, fmt.Sprintf("cookies: at most %d", maxCookies))
	}
	for name, v := range in.Cookies {
		if len(name) > maxText || len(v) > maxURL {
			bad = append(bad, fmt.Sprintf("cookies.%s: name at most %d and value at most %d bytes", truncate(name, 40), maxText, maxURL))
		}
	}
	if len(in.Page.URL) > maxURL || len(in.Page.Referrer) > maxURL || len(in.Page.Title) > maxURL {
		bad = append(bad, fmt.Sprintf("page: url, referrer and title at most %d bytes", maxURL))
	}
	if len(in.Metadata.LeadKey) > maxText {
		bad = append(bad, fmt.Sprintf("metadata.lead_key: at most %d bytes", maxText))
	}
	if in.Value != nil && (*in.Value < 0 || *in.Value > maxValue) {
		bad = append(bad, "value: cents, from 0 to 10^12")
	}
	if in.ClickID != nil && (*in.ClickID < 1 || *in.ClickID > maxClickID) {
		bad = append(bad, "click_id: a click id (decoded_id), from 1 to 2^53 - 1")
	}
	if in.Currency = strings.ToUpper(strings.TrimSpace(in.Currency)); in.Currency != "" && !isCurrency(in.Currency) {
		bad = append(bad, fmt.Sprintf("currency: %q is not an ISO 4217 code such as BRL or USD", in.Currency))
	}
	if p := bytes.TrimSpace(in.Properties); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		if p[0] != '{' {
			bad = append(bad, "properties: must be an object")
		} else if len(p) > maxProperties {
			bad = append(bad, fmt.Sprintf("properties: at most %d bytes", maxProperties))
		}
	}
	switch {
	case len(bad) > 0:
		return in, apperr.Invalid("Invalid event.", append(bad, missing...)...)
	case len(missing) > 0:
		return in, apperr.Missing("Invalid event.", missing...)
	}
	return in, nil
}

func checkLead(l leads.Identity) []string {
	var bad []string
	for name, v := range map[string]string{"email": l.Email, "phone": l.Phone, "document": l.Document, "name": l.Name,
		"first_name": l.FirstName, "last_name": l.LastName, "external_id": l.ExternalID, "city": l.City,
		"state": l.State, "zip": l.Zip, "country": l.Country} {
		if utf8.RuneCountInString(v) > maxText {
			bad = append(bad, fmt.Sprintf("lead.%s: at most %d characters", name, maxText))
		}
	}
	if e := leads.NormalizeEmail(l.Email); e != "" {
		if local, domain, ok := strings.Cut(e, "@"); !ok || local == "" || !strings.Contains(domain, ".") || strings.ContainsAny(e, " \t") {
			bad = append(bad, "lead.email: not an e-mail address")
		}
	}
	if strings.TrimSpace(l.Phone) != "" && len(leads.Digits(l.Phone)) < 6 {
		bad = append(bad, "lead.phone: at least 6 digits")
	}
	slices.Sort(bad)
	return bad
}

func isCurrency(s string) bool {
	return len(s) == 3 && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
