package adsync_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"mtk/adsync"
	"mtk/internal/adsim"
	"mtk/platform"
)

// Observe hears every recorded run with its result and error.
func TestObserveHearsRecordedRuns(t *testing.T) {
	w := newWorld(t, time.Date(2024, 5, 20, 13, 5, 0, 0, time.UTC), 3)
	type heard struct {
		conn string
		res  adsync.Result
		err  error
	}
	var got []heard
	w.syncer.Observe = func(c platform.Connection, res adsync.Result, err error) {
		got = append(got, heard{c.ID, res, err})
	}
	c := w.conn(adsim.Alpha)
	res, err := w.syncer.Run(context.Background(), c, adsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].conn != c.ID || got[0].err != nil || got[0].res != res || res.Rows == 0 {
		t.Fatalf("heard %+v for run %+v", got, res)
	}

	w.sim.SetFaults(adsim.Faults{Network: adsim.Alpha, FailNext: 1000, FailStatus: http.StatusServiceUnavailable})
	w.clock.Advance(10 * time.Minute)
	if _, err := w.syncer.Run(context.Background(), c, adsync.Options{}); err == nil {
		t.Fatal("sync under faults succeeded")
	}
	if len(got) != 2 || got[1].err == nil || got[1].res.RunID == "" {
		t.Fatalf("failed run heard as %+v", got[len(got)-1])
	}
}
