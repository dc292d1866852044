package engine

import (
	"encoding/json"
	"sort"
	"strings"

	"mtk/facts"
)

// Attribution is metadata.attribution: which touches of an order's lead earn its order metrics
// (tx_*), and on which date. Event and ad metrics ignore it.
type Attribution struct {
	Model string `json:"model,omitempty"`
	// WindowDays is a pointer so that an explicit 0 is refused, not taken for the default.
	WindowDays *int   `json:"window_days,omitempty"`
	Date       string `json:"date,omitempty"`
	// Touches is the touch set a model credits, facts.TouchesAds or facts.TouchesAll; "" takes
	// the view's (touches.go).
	Touches string `json:"touches,omitempty"`
	// unknown are the members the body gave that Attribution does not have, sorted: each is a
	// problem (a misspelt "windows" must not quietly leave the default window in force).
	unknown []string
}

// attributionMembers are Attribution's JSON members, as a detail line lists them.
var attributionMembers = []string{"model", "window_days", "date", "touches"}

// UnmarshalJSON reads the members as encoding/json does and records the unknown ones.
func (a *Attribution) UnmarshalJSON(b []byte) error {
	type plain Attribution
	if err := json.Unmarshal(b, (*plain)(a)); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	for name := range members {
		if !contains(attributionMembers, name) {
			a.unknown = append(a.unknown, name)
		}
	}
	sort.Strings(a.unknown)
	return nil
}

// The model that reads the facts as attributed at ingestion, the dates a credit can be on, and
// the default window; the crediting models and the longest window are facts' (facts/credits.go).
const (
	ModelReported = "reported"

	DateConversion = "conversion"
	DateClick      = "click"

	DefaultWindowDays = 28
)

// Models are the attribution models, reported (the order's own attribution) first: GET
// /v3/fields lists them.
var Models = append([]string{ModelReported}, facts.CreditModels...)

// AttributionDates are the values of metadata.attribution.date.
var AttributionDates = []string{DateConversion, DateClick}

// credits is a resolved attribution: the zero value (reported) reads the fact tables as they are.
type credits struct {
	model      string
	windowDays int
	click      bool
	// touches is the touch set credited (facts.TouchesAds or facts.TouchesAll), the view's
	// default when the query names none.
	touches string
}

func (c credits) on() bool { return c.model != "" && c.model != ModelReported }

func (in QueryInput) attribution() *Attribution {
	if in.Metadata == nil {
		return nil
	}
	return in.Metadata.Attribution
}

// validateAttribution adds a problem for each bad member of metadata.attribution.
func (in QueryInput) validateAttribution(p *problems) {
	a := in.attribution()
	if a == nil {
		return
	}
	for _, name := range a.unknown {
		p.add("metadata.attribution.%s: unknown member; want one of %s", name, strings.Join(attributionMembers, ", "))
	}
	if a.Model != "" && !contains(Models, a.Model) {
		p.add("metadata.attribution.model: unknown model %q; want one of %s", a.Model, strings.Join(Models, ", "))
	}
	if a.WindowDays != nil && (*a.WindowDays < 1 || *a.WindowDays > facts.MaxWindowDays) {
		p.add("metadata.attribution.window_days: must be between 1 and %d", facts.MaxWindowDays)
	}
	if a.Date != "" && !contains(AttributionDates, a.Date) {
		p.add("metadata.attribution.date: unknown date %q; want one of %s", a.Date, strings.Join(AttributionDates, ", "))
	}
	in.validateTouches(p, a)
}

// resolveCredits is the query's attribution with its defaults (a validated query).
func (in QueryInput) resolveCredits() credits {
	a := in.attribution()
	if a == nil {
		return credits{touches: in.defaultTouches()}
	}
	c := credits{model: a.Model, windowDays: DefaultWindowDays, click: a.Date == DateClick, touches: a.Touches}
	if a.WindowDays != nil {
		c.windowDays = *a.WindowDays
	}
	if c.touches == "" {
		c.touches = in.defaultTouches()
	}
	return c
}

// AttributionChoices is what GET /v3/fields says metadata.attribution takes.
type AttributionChoices struct {
	Models     []string    `json:"models"`
	Dates      []string    `json:"dates"`
	WindowDays WindowRange `json:"window_days"`
	// Touches are the touch sets, with the default of each view.
	Touches TouchChoices `json:"touches"`
}

// WindowRange is the range and default of window_days.
type WindowRange struct {
	Min     int `json:"min"`
	Max     int `json:"max"`
	Default int `json:"default"`
}

var attributionChoices = AttributionChoices{Models: Models, Dates: AttributionDates,
	WindowDays: WindowRange{Min: 1, Max: facts.MaxWindowDays, Default: DefaultWindowDays}, Touches: touchChoices}

// AttributionUsed is the attribution a query is answered with, defaults filled in (explain).
type AttributionUsed struct {
	Model      string `json:"model"`
	WindowDays int    `json:"window_days"`
	Date       string `json:"date"`
	// Touches is the touch set credited: under reported, the one its view counts.
	Touches string `json:"touches"`
	// Table is the credits table the order metrics are read from, "" when no model credits them.
	Table string `json:"table,omitempty"`
}

func (c credits) used() AttributionUsed {
	u := AttributionUsed{Model: c.model, WindowDays: c.windowDays, Date: DateConversion, Touches: c.touches}
	if u.Model == "" {
		u.Model = ModelReported
	}
	if u.WindowDays == 0 {
		u.WindowDays = DefaultWindowDays
	}
	if c.click {
		u.Date = DateClick
	}
	return u
}
