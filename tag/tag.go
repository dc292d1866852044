// Package tag builds a container's script, the tag a shop installs on its pages: tag.js (kept
// here as plain JavaScript and embedded in the binary) followed by the container's configuration
// as a JSON argument, so that the page runs no eval and loads nothing but this script and the
// event route, both on the mtk origin. GET /t/{container}.js serves it (api/tagscript.go).
package tag

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // tag.js
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"mtk/platform"
)

//go:embed tag.js
var source []byte

// Path is the script's path for a container reference (an id, a v3 tracking code or a v2 domain).
func Path(ref string) string { return "/t/" + ref + ".js" }

// InstallLine is the HTML a shop puts on its pages to run the container ref's triggers, served
// from baseURL (the mtk origin, MTK_BASE_URL).
func InstallLine(baseURL, ref string) string {
	return fmt.Sprintf(`<script async src="%s%s"></script>`, strings.TrimRight(baseURL, "/"), Path(ref))
}

// Ref is the reference a container's install line names: its tracking code, or for a legacy v2
// container its id.
func Ref(c platform.Container) string {
	if c.TrackingCode != nil {
		return *c.TrackingCode
	}
	return c.ID
}

// Config is what the script is given (its argument C): the lead key cookie, whether it waits
// for consent, and the container's client-side triggers.
type Config struct {
	Key      string    `json:"key"`
	Consent  bool      `json:"consent"`
	Triggers []Trigger `json:"triggers"`
}

// Trigger is a client-side trigger as the script reads it. A condition is [variable, operator,
// value] and, for matches, the expression's flags: the browser RegExp that platform.JSRegExp
// makes of the RE2 expression saved.
type Trigger struct {
	ID         string               `json:"id"`
	Type       string               `json:"type"`
	Name       string               `json:"name"`
	Alpha      *platform.AlphaEvent `json:"alpha,omitempty"`
	Conditions [][]string           `json:"conditions,omitempty"`
	Selector   string               `json:"selector,omitempty"`
	Seconds    float64              `json:"seconds,omitempty"`
	Percent    int                  `json:"percent,omitempty"`
	Fire       string               `json:"fire"`
}

// Compile makes the script's configuration of a container and its triggers; server-side
// triggers are left out.
func Compile(c platform.Container, triggers []platform.Trigger) Config {
	cfg := Config{Key: c.Metadata.LeadKey, Consent: c.Metadata.RequireConsent, Triggers: []Trigger{}}
	for _, t := range triggers {
		r := t.Config.Trigger
		if !platform.ClientTrigger(r.Type) {
			continue
		}
		out := Trigger{ID: t.ID, Type: r.Type, Name: t.Config.Name, Selector: r.Selector, Seconds: r.Seconds,
			Percent: r.Percent, Fire: r.Fire}
		if t.Config.Alpha.Name != "" {
			out.Alpha = &t.Config.Alpha
		}
		for _, cond := range r.Conditions {
			row := []string{cond.Variable, cond.Operator, cond.Value}
			if cond.Operator == platform.OperatorMatches {
				src, flags := platform.JSRegExp(cond.Value)
				row = append(row[:2], src, flags)
			}
			out.Conditions = append(out.Conditions, row)
		}
		cfg.Triggers = append(cfg.Triggers, out)
	}
	return cfg
}

// Script is a container's script and its entity tag, which moves with every change of the
// script's text: of tag.js, the container or a trigger.
type Script struct {
	Body []byte
	ETag string
}

// Build returns the script of a configuration: tag.js called with it.
func Build(cfg Config) (Script, error) {
	arg, err := json.Marshal(cfg) // escapes <, > and &: the text stays inert if inlined in HTML
	if err != nil {
		return Script{}, err
	}
	var b bytes.Buffer
	b.Grow(len(source) + len(arg) + 4)
	b.Write(bytes.TrimRight(source, "\n"))
	b.WriteByte('(')
	b.Write(arg)
	b.WriteString(");\n")
	sum := sha256.Sum256(b.Bytes())
	return Script{Body: b.Bytes(), ETag: `"` + hex.EncodeToString(sum[:12]) + `"`}, nil
}

// Scripts builds the scripts of the live containers.
type Scripts struct{ containers *platform.Containers }

// NewScripts returns the script builder of containers.
func NewScripts(containers *platform.Containers) *Scripts { return &Scripts{containers: containers} }

// Script returns the script of the live container ref (an id, a v3 tracking code or a v2
// domain); a deleted or unknown container is not found.
func (s *Scripts) Script(ctx context.Context, ref string) (Script, error) {
	c, err := s.containers.LiveContainer(ctx, ref)
	if err != nil {
		return Script{}, err
	}
	ts, err := s.containers.ContainerTriggers(ctx, c.ID, platform.ClientTriggerTypes)
	if err != nil {
		return Script{}, err
	}
	return Build(Compile(c, ts))
}
