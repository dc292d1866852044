package loadgen

import (
	"context"
	"net/http"
	"time"

	"mtk/client"
)

// Query is one body sent as POST /v3/query, named for the reports (its file name).
type Query struct {
	Name string
	Body []byte
}

// Target is the server and the queries a run sends, round robin.
type Target struct {
	Client  *client.Client
	Queries []Query
	// NoCache sends Cache-Control: no-cache, so that every answer is read afresh.
	NoCache bool
}

// Sample is what one request got.
type Sample struct {
	Query int // index in Target.Queries
	// Latency runs from the request's start (the scheduled start in the open model) to the end
	// of its answer.
	Latency time.Duration
	// Status is the answer's HTTP status, 0 when none came (Code then says why).
	Status int
	// Code is the error envelope's code for an error answer.
	Code   string
	Timing Timing
}

// OK reports a 2xx answer.
func (s Sample) OK() bool { return s.Status >= 200 && s.Status <= 299 }

// noAnswer is the Code of a request that got no answer: the connection failed or timed out.
const noAnswer = "no_answer"

// Send sends query i once and measures it from start.
func (t *Target) Send(ctx context.Context, i int, start time.Time) (Sample, error) {
	var resp client.Response
	opts := []client.CallOption{client.WithResponse(&resp)}
	if t.NoCache {
		opts = append(opts, client.WithHeader("Cache-Control", "no-cache"))
	}
	_, err := t.Client.RawRequest(ctx, http.MethodPost, "/v3/query", t.Queries[i].Body, opts...)
	s := Sample{Query: i, Latency: time.Since(start), Status: resp.StatusCode}
	if resp.Header != nil {
		s.Timing = ParseServerTiming(resp.Header.Get("Server-Timing"))
	}
	if e, ok := client.AsError(err); ok {
		s.Code = e.Code
	} else if err != nil {
		s.Status, s.Code = 0, noAnswer
	}
	return s, err
}
