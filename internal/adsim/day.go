package adsim

import (
	"fmt"
	"time"
)

// day is a civil date, counted in days since 1970-01-01. Which instants it covers depends on the
// account's time zone; see account.dayStart.
type day int32

const dayLayout = "2006-01-02"

func dayOf(t time.Time) day {
	y, m, d := t.Date()
	return day(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func parseDay(s string) (day, error) {
	t, err := time.Parse(dayLayout, s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a YYYY-MM-DD date", s)
	}
	return day(t.Unix() / 86400), nil
}

func (d day) utc() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }
func (d day) String() string { return d.utc().Format(dayLayout) }

// dayStart is the Unix second at which local day d begins in the account's time zone. Where a
// time-zone change skips midnight the day begins at the first instant that exists.
func (a *account) dayStart(d day) int64 {
	y, m, dd := d.utc().Date()
	return time.Date(y, m, dd, 0, 0, 0, 0, a.loc).Unix()
}

// localOf returns the local day and hour (0-23) of Unix second t.
func (a *account) localOf(t int64) (day, int) {
	lt := time.Unix(t, 0).In(a.loc)
	return dayOf(lt), lt.Hour()
}

// localTime formats Unix second t in the account's zone with layout.
func (a *account) localTime(t int64, layout string) string {
	return time.Unix(t, 0).In(a.loc).Format(layout)
}

// today is the local day that contains now.
func (a *account) today(now int64) day {
	d, _ := a.localOf(now)
	return d
}

// hourFloor rounds Unix second t down to a whole UTC hour. Every zone the simulator uses has a
// whole-hour offset, so UTC hours are also local hours.
func hourFloor(t int64) int64 { return t - ((t%3600)+3600)%3600 }
