package events

import (
	"strings"
	"unicode"
)

// The business fact an event counts as, from its names: config.alpha.name, else config.name,
// compared without case, spaces or punctuation. PageView (page_view) counts in page_views;
// Lead in leads; InitiateCheckout (initiate_checkout) in initiate_checkout. An event that
// creates a new lead counts in leads too, at most once per event. Other names count nowhere
// but are kept in the events table.
type measures struct {
	pageViews, leads, initiateCheckout int64
}

func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

func measuresOf(cfg EventConfig, newLead bool) measures {
	var m measures
	names := []string{cfg.Name}
	if cfg.Alpha != nil {
		names = append([]string{cfg.Alpha.Name}, names...)
	}
	for _, n := range names {
		switch foldName(n) {
		case "pageview":
			m.pageViews = 1
		case "lead":
			m.leads = 1
		case "initiatecheckout":
			m.initiateCheckout = 1
		default:
			continue
		}
		break
	}
	if newLead {
		m.leads = 1
	}
	return m
}

func (m measures) zero() bool { return m == measures{} }
