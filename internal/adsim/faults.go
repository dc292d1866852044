package adsim

import (
	"net/http"
	"sync"
	"time"
)

// Faults are failures injected into API requests (never into /_admin/). The zero value injects
// nothing. Each request meets, in order: Latency; then, while TimeoutNext > 0, a hold; then, while
// FailNext > 0, a server error; then FailRate. Counters go down as requests consume them.
type Faults struct {
	// Network limits the faults to one network's requests ("" = all networks).
	Network Network
	// Latency is added before every answer.
	Latency time.Duration
	// TimeoutNext requests are held for Hold (default 30s), or until the client gives up, and then
	// answered 504 in the network's shape.
	TimeoutNext int
	Hold        time.Duration
	// FailNext requests are answered FailStatus (default 500) in the network's shape.
	FailNext   int
	FailStatus int
	// FailRate is how many requests per 1000, after FailNext, fail with FailStatus. Which ones is
	// a hash of the seed and the request's sequence number, so a run repeats exactly.
	FailRate int
}

type faultState struct {
	mu sync.Mutex
	f  Faults
}

// SetFaults replaces the injected faults.
func (s *Sim) SetFaults(f Faults) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if f.FailStatus == 0 {
		f.FailStatus = http.StatusInternalServerError
	}
	if f.Hold == 0 {
		f.Hold = 30 * time.Second
	}
	s.faults.f = f
}

// Faults returns the faults in force, with the counters left.
func (s *Sim) Faults() Faults {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	return s.faults.f
}

// ClearFaults stops injecting faults.
func (s *Sim) ClearFaults() { s.SetFaults(Faults{}) }

// injectFault applies the faults to request number seq of network n. It returns the error to
// answer, or nil to serve the request.
func (s *Sim) injectFault(r *http.Request, n Network, seq uint64) *apiErr {
	s.faults.mu.Lock()
	f := &s.faults.f
	if f.Network != "" && f.Network != n {
		s.faults.mu.Unlock()
		return nil
	}
	latency, hold, fail := f.Latency, time.Duration(0), 0
	switch {
	case f.TimeoutNext > 0:
		f.TimeoutNext--
		hold = f.Hold
	case f.FailNext > 0:
		f.FailNext--
		fail = f.FailStatus
	case f.FailRate > 0 && int(mix(uint64(s.cfg.Seed), seq, 5)%1000) < f.FailRate:
		fail = f.FailStatus
	}
	s.faults.mu.Unlock()
	if !sleep(r, latency) {
		return &apiErr{kind: errTimeout, msg: "The client went away."}
	}
	switch {
	case hold > 0:
		sleep(r, hold)
		return &apiErr{kind: errTimeout, msg: "The request took too long and was cancelled.", status: http.StatusGatewayTimeout}
	case fail > 0:
		return &apiErr{kind: errServer, msg: "An unexpected error has occurred. Please retry your request later.", status: fail}
	}
	return nil
}

// sleep waits d unless the request is cancelled first; it reports whether it waited it all.
func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
