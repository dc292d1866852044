package adsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The request path every network API shares: injected faults, then the access token, then the
// quota, then the network's handler. Errors are neutral apiErr values that each network's
// dialect writes in its own shape.

// errKind is the neutral class of an API error.
type errKind int

const (
	errAuth        errKind = iota // no token, or one the simulator does not know
	errNotFound                   // unknown object, or one the token's account does not own
	errInvalid                    // a bad parameter
	errRateLimit                  // the token's quota is spent
	errBudgetLimit                // too many budget changes to one object in an hour
	errServer                     // an injected server error
	errTimeout                    // a held request that the client outwaited
)

// apiErr is an error on its way to a network's error shape.
type apiErr struct {
	kind       errKind
	msg        string
	status     int    // errServer: the injected HTTP status
	retryAfter int    // errRateLimit: seconds until the quota resets
	reason     string // a network-specific reason code (beta's error enum), when the handler knows it
	sub        int    // alpha: an error_subcode more precise than the kind's
}

func errorf(kind errKind, format string, args ...any) *apiErr {
	return &apiErr{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// dialect is what the shared request path needs to know about one network.
type dialect interface {
	network() Network
	// token extracts the access token from the request ("" when there is none).
	token(r *http.Request) string
	// writeError answers e in the network's error shape.
	writeError(w http.ResponseWriter, e *apiErr, trace string)
}

// netHandler serves one API request for account a, the one the request's token grants.
type netHandler func(w http.ResponseWriter, r *http.Request, a *account, trace string)

// serve wraps h with the shared request path of dialect d.
func (s *Sim) serve(d dialect, h netHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seq := s.seq.Add(1)
		trace := fmt.Sprintf("A%015x", mix(uint64(s.cfg.Seed), seq)>>4)
		if e := s.injectFault(r, d.network(), seq); e != nil {
			if r.Context().Err() == nil {
				d.writeError(w, e, trace)
			}
			return
		}
		tok := d.token(r)
		a := s.tokens[tok]
		if tok == "" || a == nil || a.network != d.network() {
			d.writeError(w, errorf(errAuth, "Invalid OAuth access token."), trace)
			return
		}
		if retry := s.quota.take(tok, s.cfg.Clock.Now()); retry > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(retry))
			e := errorf(errRateLimit, "Too many requests: at most %d a minute per access token. Retry in %d seconds.", s.quota.limit(), retry)
			e.retryAfter = retry
			d.writeError(w, e, trace)
			return
		}
		h(w, r, a, trace)
	})
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// decodeJSON reads a JSON request body of at most 8 MiB into v.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 8<<20))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the body is not valid JSON: %v", err)
	}
	return nil
}

// retrySeconds is the whole seconds from now until t, at least 1.
func retrySeconds(now, t time.Time) int {
	d := t.Sub(now)
	return max(int((d+time.Second-1)/time.Second), 1)
}
