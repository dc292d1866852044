package events

import (
	"strings"
	"unicode"

	"mtk/facts"
)

// The business fact an event counts as, from its names: config.alpha.name, else config.name,
// compared without case, spaces or punctuation. PageView (page_view) counts in page_views;
// Lead in leads; InitiateCheckout (initiate_checkout) in initiate_checkout. An event that
// creates a new lead counts in leads too, at most once per event. Other names count nowhere
// but are kept in the events table.

func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

func measuresOf(cfg EventConfig, newLead bool) facts.Values {
	var m facts.Values
	names := []string{cfg.Name}
	if cfg.Alpha != nil {
		names = append([]string{cfg.Alpha.Name}, names...)
	}
	for _, n := range names {
		switch foldName(n) {
		case "pageview":
			m[facts.PageViews] = 1
		case "lead":
			m[facts.Leads] = 1
		case "initiatecheckout":
			m[facts.InitiateCheckout] = 1
		default:
			continue
		}
		break
	}
	if newLead {
		m[facts.Leads] = 1
	}
	return m
}
