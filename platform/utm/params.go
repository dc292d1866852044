package utm

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxValue is the most characters a UTM parameter may hold: a campaign's name and id fit in a few
// dozen, and a value stored with every event and order must not be a megabyte of someone's text.
const MaxValue = 500

// Params are the five UTM parameters, decoded and trimmed. They marshal to and from the JSON
// members utm_source ... utm_term, the shape of an event body's `utm` member.
type Params struct {
	Source   string `json:"utm_source,omitempty"`
	Medium   string `json:"utm_medium,omitempty"`
	Campaign string `json:"utm_campaign,omitempty"`
	Content  string `json:"utm_content,omitempty"`
	Term     string `json:"utm_term,omitempty"`
}

// names are the parameters' keys, in the order of Params.
var names = [...]string{"utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"}

// IsZero reports whether no parameter has a value.
func (p Params) IsZero() bool { return p == Params{} }

// Problems names, under member (the body's UTM object, as "utm"), each parameter longer than
// MaxValue.
func (p Params) Problems(member string) []string {
	var out []string
	for _, name := range names {
		if utf8.RuneCountInString(*p.field(name)) > MaxValue {
			out = append(out, fmt.Sprintf("%s.%s: at most %d characters", member, name, MaxValue))
		}
	}
	return out
}

// field returns the member for key (matched without case), or nil for any other key.
func (p *Params) field(key string) *string {
	switch strings.ToLower(key) {
	case "utm_source":
		return &p.Source
	case "utm_medium":
		return &p.Medium
	case "utm_campaign":
		return &p.Campaign
	case "utm_content":
		return &p.Content
	case "utm_term":
		return &p.Term
	}
	return nil
}

// Overlay is p with every member that over has a value for replaced by over's: a tracking link's
// UTM under the parameters of the URL a visitor clicked (an ad's dynamic utm_content, say).
func (p Params) Overlay(over Params) Params {
	for _, name := range names {
		if v := *over.field(name); v != "" {
			*p.field(name) = v
		}
	}
	return p
}

// clean decodes and trims every member.
func (p Params) clean() Params {
	for _, name := range names {
		f := p.field(name)
		*f = clean(*f)
	}
	return p
}

// Extract returns the UTM parameters of an event: those of the body's `utm` member (explicit) if
// any has a value, else those of pageURL's query string, else those of the cookies. The first
// source with any value wins as a whole set. See the package comment for the decoding rules.
func Extract(explicit Params, pageURL string, cookies map[string]string) Params {
	if p := explicit.clean(); !p.IsZero() {
		return p
	}
	if p := fromURL(pageURL); !p.IsZero() {
		return p
	}
	return fromCookies(cookies)
}
