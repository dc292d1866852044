package adsync

import (
	"time"

	"mtk/facts"
	"mtk/platform"
)

// Windows of the sync types, in local days of the account.
const (
	// FullDays is what the first sync of a connection reads.
	FullDays = 30
	// IncrementalDays is the least an incremental sync reads (today and the two days before):
	// a day is provisional until some hours after it ends, and restatements land there.
	IncrementalDays = 3
	// HourlyDays: the last days before today are read per hour; older days per day.
	HourlyDays = 7
)

// window is the local dates a run reads: since..today, per hour from hourFrom on.
type window struct {
	since, hourFrom, today string
}

func addDays(date string, n int) string {
	t, _ := time.Parse(time.DateOnly, date)
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// planWindow chooses the dates of a run of syncType (days only counts for backfill). An
// incremental run also reaches back to the day before its last success, and never further than
// a full one. Days that already hold hourly buckets (hourDates) stay hourly: finer data is never
// replaced by coarser.
func planWindow(syncType string, today string, lastSuccess string, days int, hourDates []string) window {
	w := window{today: today}
	switch syncType {
	case platform.SyncFull:
		w.since = addDays(today, 1-FullDays)
	case platform.SyncBackfill:
		w.since = addDays(today, 1-max(days, 1))
	default:
		w.since = addDays(today, 1-IncrementalDays)
		if lastSuccess != "" && addDays(lastSuccess, -1) < w.since {
			w.since = max(addDays(lastSuccess, -1), addDays(today, 1-FullDays))
		}
	}
	w.hourFrom = max(w.since, addDays(today, -HourlyDays))
	for _, d := range hourDates {
		if d >= w.since && d < w.hourFrom {
			w.hourFrom = d
		}
	}
	return w
}

// target builds the buckets the network reports for w: day rows before hourFrom; hour rows
// from hourFrom on, plus a day bucket holding only reach when the network reports reach (hour
// rows never carry it).
func target(w window, days, hours []Insight, hasReach bool) map[bucketKey]bucket {
	out := map[bucketKey]bucket{}
	add := func(in Insight, m facts.Values) {
		k := bucketKey{Date: in.Date, Hour: in.Hour, AdID: in.AdID}
		b := out[k]
		b.bucketKey, b.CampaignID, b.AdsetID = k, in.CampaignID, in.AdsetID
		b.Metrics = b.Metrics.Add(m)
		out[k] = b
	}
	for _, in := range days {
		switch {
		case in.Date < w.since || in.Date > w.today:
		case in.Date < w.hourFrom:
			add(in, in.Metrics)
		case hasReach && in.Metrics[facts.Reach] != 0:
			add(in, facts.Values{facts.Reach: in.Metrics[facts.Reach]})
		}
	}
	for _, in := range hours {
		if in.Date >= w.hourFrom && in.Date <= w.today {
			in.Metrics[facts.Reach] = 0
			add(in, in.Metrics)
		}
	}
	return out
}

// change is a bucket's new state and the difference to write for it.
type change struct {
	bucket
	delta facts.Values
}

// diff compares what the network reports (want) with the snapshot (have) over the window and
// returns every bucket whose numbers moved, with the difference. A bucket keeps its position;
// a new one is raw today, hourly from hourFrom on, daily before.
func diff(w window, want, have map[bucketKey]bucket) []change {
	var out []change
	for k, nb := range want {
		old, seen := have[k]
		if seen {
			nb.Position = old.Position
		} else {
			nb.Position = newPosition(w, k.Date)
		}
		if d := nb.Metrics.Sub(old.Metrics); !d.IsZero() {
			out = append(out, change{bucket: nb, delta: d})
		}
	}
	for k, old := range have {
		if _, ok := want[k]; ok || k.Date < w.since || k.Date > w.today || old.Metrics.IsZero() {
			continue
		}
		gone := old
		gone.Metrics = facts.Values{}
		out = append(out, change{bucket: gone, delta: gone.Metrics.Sub(old.Metrics)})
	}
	return out
}

func newPosition(w window, date string) string {
	switch {
	case date == w.today:
		return PositionRaw
	case date >= w.hourFrom:
		return PositionHourly
	}
	return PositionDaily
}
