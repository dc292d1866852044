package engine

import (
	"sync"
	"time"

	"mtk/facts"
)

// zones are the zones loadZone found, by name: only valid IANA names are kept, so they are few.
var zones sync.Map

// loadZone checks an IANA zone name before it may become a SQL string literal: a strict
// character whitelist first, then Go's zone database.
func loadZone(name string) (*time.Location, bool) {
	if name == "" || len(name) > 64 || name == "Local" {
		return nil, false
	}
	for i, r := range name {
		ok := r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_' || r == '/' ||
			i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '+')
		if !ok {
			return nil, false
		}
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), true
	}
	loc, err := time.LoadLocation(name) // reads the zone's file: every query would
	if err != nil {
		return nil, false
	}
	zones.Store(name, loc)
	return loc, true
}

// DayStart is the first instant of the local calendar day day (given as midnight UTC of that
// date) in loc. On a day whose midnight does not exist (a DST change at 00:00) it is the first
// instant that does, as in ClickHouse.
func DayStart(day time.Time, loc *time.Location) time.Time {
	y, m, d := day.Date()
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if ly, lm, ld := t.Date(); ly != y || lm != m || ld != d {
		_, end := t.ZoneBounds()
		t = end
	}
	return t
}

func dayAligned(t time.Time, loc *time.Location) bool {
	return t.Equal(DayStart(facts.LocalDay(t, loc), loc))
}

func hourAligned(t time.Time, loc *time.Location) bool { return t.Equal(facts.HourStart(t, loc)) }
