package config

import (
	"fmt"
	"strings"
)

// Toggle is an on/off setting, read once by FromEnv from its variable's "on" or "off" (in any
// case). Its zero value, Unset, is the setting's default, so that a Config written in Go says
// only what it changes.
type Toggle uint8

const (
	Unset Toggle = iota
	On
	Off
)

// toggles are the variables read as Toggles: a value that is neither on nor off is refused by
// Validate, naming the variable.
var toggles = []string{"MTK_RATE_LIMITS", "MTK_QUERY_CACHE", "MTK_SHARED_ANSWERS", "MTK_DEMO_SHOP"}

// ParseToggle reads "on" or "off" (any case, spaces around ignored; empty is Unset).
func ParseToggle(raw string) (Toggle, error) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "":
		return Unset, nil
	case "on":
		return On, nil
	case "off":
		return Off, nil
	}
	return Unset, fmt.Errorf("%q: want on or off", raw)
}

// Or reports whether the setting is on, def when it is Unset.
func (t Toggle) Or(def bool) bool {
	switch t {
	case On:
		return true
	case Off:
		return false
	}
	return def
}

// String is "on", "off" or "" (Unset).
func (t Toggle) String() string {
	switch t {
	case On:
		return "on"
	case Off:
		return "off"
	}
	return ""
}

// toggle reads the variable name as a Toggle; a value that is neither is kept for Validate.
func (c Config) toggle(name string) Toggle {
	raw := env(name, "")
	t, err := ParseToggle(raw)
	if err != nil {
		c.written[name] = raw
	}
	return t
}

// badToggles are Validate's problems with the Toggles' variables.
func (c Config) badToggles() []string {
	var problems []string
	for _, name := range toggles {
		if raw, bad := c.written[name]; bad {
			problems = append(problems, fmt.Sprintf("%s %q: want on or off", name, raw))
		}
	}
	return problems
}
