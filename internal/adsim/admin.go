package adsim

import (
	"net/http"
	"time"
)

// The admin endpoints under /_admin/: no authentication, JSON in and out, errors as
// {"error": "..."}. They are the HTTP face of the Go methods on *Sim.

type settableClock interface {
	Set(time.Time)
	Advance(time.Duration)
}

func (s *Sim) adminRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /_admin/accounts", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"accounts": s.Accounts()})
	})
	mux.HandleFunc("GET /_admin/objects", func(w http.ResponseWriter, r *http.Request) {
		objs, err := s.Objects(Network(r.URL.Query().Get("network")), r.URL.Query().Get("account"))
		if err != nil {
			adminError(w, http.StatusNotFound, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"objects": objs})
	})
	mux.HandleFunc("GET /_admin/truth", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		t, err := s.Truth(TruthQuery{Network: Network(q.Get("network")), Account: q.Get("account"),
			Level: Level(q.Get("level")), Granularity: Granularity(q.Get("granularity")),
			Since: q.Get("since"), Until: q.Get("until")})
		if err != nil {
			adminError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, t)
	})
	mux.HandleFunc("GET /_admin/capi/events", func(w http.ResponseWriter, r *http.Request) {
		pixel := r.URL.Query().Get("pixel_id")
		if pixel == "" {
			adminError(w, http.StatusBadRequest, "pixel_id is required")
			return
		}
		writeJSON(w, http.StatusOK, s.CAPIEvents(pixel))
	})
	mux.HandleFunc("GET /_admin/faults", s.adminFaults)
	mux.HandleFunc("POST /_admin/faults", s.adminFaults)
	mux.HandleFunc("DELETE /_admin/faults", s.adminFaults)
	mux.HandleFunc("GET /_admin/quota", s.adminQuota)
	mux.HandleFunc("POST /_admin/quota", s.adminQuota)
	mux.HandleFunc("GET /_admin/clock", s.adminClock)
	mux.HandleFunc("POST /_admin/clock", s.adminClock)
}

func adminError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// faultsWire is Faults on the wire, with durations in milliseconds.
type faultsWire struct {
	Network     Network `json:"network,omitempty"`
	LatencyMS   int64   `json:"latency_ms"`
	TimeoutNext int     `json:"timeout_next"`
	HoldMS      int64   `json:"hold_ms"`
	FailNext    int     `json:"fail_next"`
	FailStatus  int     `json:"fail_status"`
	FailRate    int     `json:"fail_rate_permille"`
}

func (s *Sim) adminFaults(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		s.ClearFaults()
	case http.MethodPost:
		var in faultsWire
		if err := decodeJSON(r, &in); err != nil {
			adminError(w, http.StatusBadRequest, err.Error())
			return
		}
		if in.FailStatus != 0 && (in.FailStatus < 500 || in.FailStatus > 599) || in.FailRate < 0 || in.FailRate > 1000 {
			adminError(w, http.StatusBadRequest, "fail_status must be 5xx and fail_rate_permille 0 to 1000")
			return
		}
		s.SetFaults(Faults{Network: in.Network, Latency: time.Duration(in.LatencyMS) * time.Millisecond,
			TimeoutNext: in.TimeoutNext, Hold: time.Duration(in.HoldMS) * time.Millisecond,
			FailNext: in.FailNext, FailStatus: in.FailStatus, FailRate: in.FailRate})
	}
	f := s.Faults()
	writeJSON(w, http.StatusOK, faultsWire{Network: f.Network, LatencyMS: f.Latency.Milliseconds(), TimeoutNext: f.TimeoutNext,
		HoldMS: f.Hold.Milliseconds(), FailNext: f.FailNext, FailStatus: f.FailStatus, FailRate: f.FailRate})
}

func (s *Sim) adminQuota(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		var in struct {
			PerMinute int `json:"per_minute"`
		}
		if err := decodeJSON(r, &in); err != nil || in.PerMinute < 0 {
			adminError(w, http.StatusBadRequest, `want {"per_minute": N} with N >= 0 (0: no quota)`)
			return
		}
		s.SetQuota(in.PerMinute)
	}
	writeJSON(w, http.StatusOK, map[string]int{"per_minute": s.Quota()})
}

func (s *Sim) adminClock(w http.ResponseWriter, r *http.Request) {
	c, fake := s.cfg.Clock.(settableClock)
	if r.Method == http.MethodPost {
		if !fake {
			adminError(w, http.StatusConflict, "the simulator runs on the real clock; start it with -fake-clock")
			return
		}
		var in struct {
			Set     string `json:"set"`
			Advance string `json:"advance"`
		}
		if err := decodeJSON(r, &in); err != nil {
			adminError(w, http.StatusBadRequest, err.Error())
			return
		}
		switch {
		case in.Set != "" && in.Advance == "":
			t, err := time.Parse(time.RFC3339, in.Set)
			if err != nil {
				adminError(w, http.StatusBadRequest, "set: want an RFC 3339 time")
				return
			}
			c.Set(t)
		case in.Advance != "" && in.Set == "":
			d, err := time.ParseDuration(in.Advance)
			if err != nil || d < 0 {
				adminError(w, http.StatusBadRequest, `advance: want a non-negative Go duration such as "90m"`)
				return
			}
			c.Advance(d)
		default:
			adminError(w, http.StatusBadRequest, `give exactly one of {"set": RFC 3339} and {"advance": duration}`)
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"now": s.cfg.Clock.Now().UTC().Format(time.RFC3339), "fake": fake})
}
