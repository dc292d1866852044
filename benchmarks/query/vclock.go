package main

import "time"

// shiftedClock is the dashboard run's clock: the wall clock moved back by a fixed offset, so
// that the server, the simulator and the writers live on the generated data's last day while
// time still passes at its real pace (the fact drainer every second, a sync every minute).
type shiftedClock struct {
	offset time.Duration
}

// newShiftedClock makes a clock that reads start now.
func newShiftedClock(start time.Time) shiftedClock {
	return shiftedClock{offset: time.Until(start)}
}

// Now is the real now plus the offset, in UTC.
func (c shiftedClock) Now() time.Time { return time.Now().Add(c.offset).UTC() }
