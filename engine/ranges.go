package engine

import "time"

// Ranges are the names `time.range` takes (CONTRACT "Query additions"), resolved in the
// project's zone at the moment of the request. "last_N_days" are N whole days ending yesterday,
// as the ad networks' own interfaces mean it; "this_*" end today (included); weeks start on
// Monday.
var Ranges = []string{"today", "yesterday", "last_7_days", "last_14_days", "last_30_days", "last_90_days",
	"this_week", "this_month", "last_month", "this_year"}

// namedDays resolves a range name on the local date today (a civil date) to its first and last
// days (civil dates, both included).
func namedDays(name string, today time.Time) (first, last time.Time, ok bool) {
	y, m, _ := today.Date()
	month := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	switch name {
	case "today":
		return today, today, true
	case "yesterday":
		d := today.AddDate(0, 0, -1)
		return d, d, true
	case "last_7_days":
		return lastDays(today, 7)
	case "last_14_days":
		return lastDays(today, 14)
	case "last_30_days":
		return lastDays(today, 30)
	case "last_90_days":
		return lastDays(today, 90)
	case "this_week":
		back := (int(today.Weekday()) + 6) % 7 // days since Monday
		return today.AddDate(0, 0, -back), today, true
	case "this_month":
		return month, today, true
	case "last_month":
		return month.AddDate(0, -1, 0), month.AddDate(0, 0, -1), true
	case "this_year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC), today, true
	}
	return time.Time{}, time.Time{}, false
}

// lastDays are the n days before today (a map from the names to n, built and filled at every
// call, was a cost of every request naming such a range).
func lastDays(today time.Time, n int) (first, last time.Time, ok bool) {
	return today.AddDate(0, 0, -n), today.AddDate(0, 0, -1), true
}
