// Package leads keeps a project's leads in PostgreSQL: one lead per person, found by normalized
// identifiers, updated from every event that names them.
//
// # Identity
//
// An identifier is an e-mail (trimmed, lower case), a phone (digits only) or a document (digits
// only); anything else (name, external id, location) is profile, never identity. An identity
// without any identifier makes no lead.
//
// # One lead per person, under concurrency
//
// Each identifier value names at most one lead row of a project (unique indexes), and writers of
// a project's leads take a transaction-scoped advisory lock on the project first, so concurrent
// events for one person (within one process or across several) are applied one after the other
// and find what the previous one wrote. The unique indexes make a duplicate impossible even for
// a writer that skipped the lock: its insert fails instead.
//
// # Merging
//
// When one event carries identifiers of two or more different leads (the e-mail of one and the
// phone of another), they are one person: the oldest lead (created first; then the smaller id)
// survives and the others are merged into it (merged_into points at the survivor, and at no
// other merged lead). A merged row keeps its identifiers, so they keep finding the person; every
// answer names the survivor. When an event brings a second value of a kind the lead already has
// (another e-mail), that value is kept on an alias row merged into the lead, with the same effect.
//
// # Profile
//
// Name, first and last name, external id and location (city, state, zip, country) take the
// event's non-empty values (the latest event wins), member by member. A Geolocator, when
// configured, fills only the location members that neither the event nor the lead has: the
// lead's own values win. The lead's UTM is the latest non-empty one (an order without UTM takes
// it).
package leads

import (
	"context"
	"strings"

	"mtk/platform/utm"
)

// Identity is who an event names, as sent.
type Identity struct {
	Email      string `json:"email"`
	Phone      string `json:"phone"`
	Document   string `json:"document"`
	Name       string `json:"name"`
	FirstName  string `json:"first_name"`
	LastName   string `json:"last_name"`
	ExternalID string `json:"external_id"`
	City       string `json:"city"`
	State      string `json:"state"`
	Zip        string `json:"zip"`
	Country    string `json:"country"`
}

// Location is where a lead is.
type Location struct {
	City, State, Zip, Country string
}

// Geolocator finds a location by IP address. None is configured by default.
type Geolocator interface {
	// Locate returns the location of ip, and false when it knows none.
	Locate(ctx context.Context, ip string) (Location, bool)
}

// Locate fills the location members that id leaves empty from g (nil: none), for ip.
func Locate(ctx context.Context, g Geolocator, id Identity, ip string) Identity {
	if g == nil || ip == "" || id.City != "" && id.State != "" && id.Zip != "" && id.Country != "" {
		return id
	}
	loc, ok := g.Locate(ctx, ip)
	if !ok {
		return id
	}
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&id.City, loc.City)
	fill(&id.State, loc.State)
	fill(&id.Zip, loc.Zip)
	fill(&id.Country, loc.Country)
	return id
}

// keys are an identity's normalized identifiers; an empty member is absent.
type keys struct {
	email, phone, document string
}

// NormalizeEmail trims and lower-cases an e-mail.
func NormalizeEmail(v string) string { return strings.ToLower(strings.TrimSpace(v)) }

// Digits keeps the digits of v (phones, documents).
func Digits(v string) string {
	return strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, v)
}

func (id Identity) keys() keys {
	return keys{email: NormalizeEmail(id.Email), phone: Digits(id.Phone), document: Digits(id.Document)}
}

// Identified reports whether id holds an identifier.
func (id Identity) Identified() bool { return id.keys() != keys{} }

// MostMerges is the most leads an upsert of id can merge into another: one fewer than its
// identifiers, each of which may find a different lead.
func (id Identity) MostMerges() int { return max(len(keyNames(id.keys()))-1, 0) }

// Upsert is one identity to apply, with the event's UTM (zero: none).
type Upsert struct {
	Identity Identity
	UTM      utm.Params
}

// Result is the lead an identity resolved to: empty LeadID when it had no identifier; New when
// this call created the person.
type Result struct {
	LeadID string
	New    bool
}
