package adsync

import (
	"testing"

	"mtk/facts"
)

func TestMajorToMicros(t *testing.T) {
	for in, want := range map[string]int64{"12.34": 12_340_000, "0": 0, "0.000001": 1, "-1.5": -1_500_000, "120.50": 120_500_000} {
		if got, err := MajorToMicros(in); err != nil || got != want {
			t.Errorf("%s: %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"0.0000001", "abc", ""} {
		if _, err := MajorToMicros(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if MicrosToMajor(99_900_000) != "99.90" {
		t.Error(MicrosToMajor(99_900_000))
	}
}

func TestPlanWindow(t *testing.T) {
	for _, c := range []struct {
		name, typ, last string
		days            int
		hours           []string
		want            window
	}{
		{"full", "full", "", 0, nil, window{"2024-02-15", "2024-03-08", "2024-03-15"}},
		{"incremental", "incremental", "2024-03-15", 0, nil, window{"2024-03-13", "2024-03-13", "2024-03-15"}},
		{"incremental after a gap", "incremental", "2024-03-10", 0, nil, window{"2024-03-09", "2024-03-09", "2024-03-15"}},
		{"backfill keeps hourly days", "backfill", "", 90, []string{"2024-03-01"}, window{"2023-12-17", "2024-03-01", "2024-03-15"}},
	} {
		if got := planWindow(c.typ, "2024-03-15", c.last, c.days, c.hours); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestDiffKeepsPositions: a stored bucket keeps its position; a bucket the network no longer
// reports is written back to zero; finer data for a day stored per day replaces it.
func TestDiffKeepsPositions(t *testing.T) {
	w := window{since: "2024-03-10", hourFrom: "2024-03-10", today: "2024-03-15"}
	have := map[bucketKey]bucket{
		{"2024-03-14", 3, "a"}:         {bucketKey: bucketKey{"2024-03-14", 3, "a"}, Position: PositionRaw, Metrics: facts.Values{facts.Spend: 5}},
		{"2024-03-11", DayBucket, "a"}: {bucketKey: bucketKey{"2024-03-11", DayBucket, "a"}, Position: PositionDaily, Metrics: facts.Values{facts.Spend: 9}},
	}
	want := target(w, nil, []Insight{
		{AdID: "a", Date: "2024-03-14", Hour: 3, Metrics: facts.Values{facts.Spend: 6}},
		{AdID: "a", Date: "2024-03-11", Hour: 0, Metrics: facts.Values{facts.Spend: 4}},
		{AdID: "a", Date: "2024-03-11", Hour: 1, Metrics: facts.Values{facts.Spend: 5}},
		{AdID: "a", Date: "2024-03-15", Hour: 1, Metrics: facts.Values{facts.Spend: 1}},
	}, false)
	got := map[bucketKey]change{}
	for _, c := range diff(w, want, have) {
		got[c.bucketKey] = c
	}
	check := func(k bucketKey, pos string, delta int64) {
		t.Helper()
		if c, ok := got[k]; !ok || c.Position != pos || c.delta[facts.Spend] != delta {
			t.Errorf("%v: %+v (present %v), want %s %d", k, c, ok, pos, delta)
		}
	}
	check(bucketKey{"2024-03-14", 3, "a"}, PositionRaw, 1)
	check(bucketKey{"2024-03-11", DayBucket, "a"}, PositionDaily, -9)
	check(bucketKey{"2024-03-11", 0, "a"}, PositionHourly, 4)
	check(bucketKey{"2024-03-15", 1, "a"}, PositionRaw, 1)
	if len(got) != 5 {
		t.Errorf("%d changes: %+v", len(got), got)
	}
}
