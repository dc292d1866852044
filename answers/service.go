package answers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"mtk/engine"
	"mtk/facts"
	"mtk/internal/jsonx"
)

// Service answers prepared queries, from its Cache when it holds the answer at the data version
// of what the query reads, else from the Shared tier when the replicas share one.
type Service struct {
	engine   *engine.Service
	versions *facts.Versions // nil with cache: answers are not cached
	cache    *Cache
	shared   *Shared // nil: answers are not shared
}

// New returns a Service running queries on eng. versions and cache are both nil when answers
// are not cached (MTK_QUERY_CACHE off); shared is nil when they are not shared between
// replicas, and unused when they are not cached.
func New(eng *engine.Service, versions *facts.Versions, cache *Cache, shared *Shared) *Service {
	if versions == nil || cache == nil {
		versions, cache, shared = nil, nil, nil
	}
	return &Service{engine: eng, versions: versions, cache: cache, shared: shared}
}

// Request is a checked query body (engine.QueryInput.Check) for the scope of its project, with
// what the caller said of cached answers.
type Request struct {
	Scope engine.Scope
	Input engine.QueryInput
	// IfNoneMatch is the caller's If-None-Match: naming the answer's tag gets a 304 unread.
	IfNoneMatch string
	// Fresh (Cache-Control: no-cache) reads the answer afresh, keeping it for the next caller.
	Fresh bool
	// Start is when the request began, for the Server-Timing total.
	Start time.Time
}

// Answer is what the handler sends: Status (200 or 304), Body (JSON, empty with 304) and the
// headers, ETag ("" when the answer is not tagged) and ServerTiming.
type Answer struct {
	Status       int
	Body         []byte
	ETag         string
	ServerTiming string
}

// Query answers r. An answer kept for the same query at the same data version is sent again as
// it was (see tag), from this replica's Cache or else the Shared tier; an answer is kept (in
// both) and tagged only when no move of its versions was heard while it was read, since one that
// was may hold the new data under the old version.
func (s *Service) Query(ctx context.Context, r Request) (Answer, error) {
	q, err := s.prepare(ctx, r.Scope, r.Input)
	if err != nil {
		return Answer{}, err
	}
	var key, etag string
	var claim Claim // the shared tier's, when this replica reads the answer for the others
	if q.known {
		key = q.prep.Key()
		etag = tag(key)
		if r.IfNoneMatch == etag { // the answer at this version is the one the caller has
			return Answer{Status: http.StatusNotModified, ETag: etag, ServerTiming: serverTiming(0, time.Since(r.Start), "")}, nil
		}
		if !r.Fresh {
			if body, ok := s.cache.Get(key); ok {
				return Answer{Status: http.StatusOK, Body: body, ETag: etag, ServerTiming: serverTiming(0, time.Since(r.Start), SourceMemory)}, nil
			}
		}
		if s.shared != nil {
			if r.Fresh {
				claim = s.shared.Unclaimed(key)
			} else {
				body, ok, c := s.shared.Fetch(ctx, key)
				if ok {
					s.cache.Put(key, body)
					return Answer{Status: http.StatusOK, Body: body, ETag: etag, ServerTiming: serverTiming(0, time.Since(r.Start), SourceShared)}, nil
				}
				claim = c
			}
		}
	}
	kept := false
	defer func() {
		if !kept {
			claim.Drop(context.WithoutCancel(ctx))
		}
	}()
	var timing engine.Timing
	res, err := s.engine.Run(engine.WithTiming(ctx, &timing), q.prep)
	if err != nil {
		return Answer{}, err
	}
	body, err := encodeResult(res)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Status: http.StatusOK, Body: body}
	if q.known {
		if after, still, err := s.version(ctx, r.Scope.ProjectID, q.prep); err == nil && still && after == q.version {
			s.cache.Put(key, body)
			claim.Keep(ctx, body)
			kept = true
			a.ETag = etag
		}
	}
	a.ServerTiming = serverTiming(timing.DB(), time.Since(r.Start), SourceClickHouse)
	return a, nil
}

// Explain answers POST /v3/query/explain: how the query would be answered (engine.Explain),
// whether the cache holds its answer now and where it would come from (this replica's cache,
// the shared tier, or ClickHouse); the answer statement is not run.
func (s *Service) Explain(ctx context.Context, scope engine.Scope, in engine.QueryInput) ([]byte, error) {
	q, err := s.prepare(ctx, scope, in)
	if err != nil {
		return nil, err
	}
	ex, err := s.engine.Explain(ctx, q.prep)
	if err != nil {
		return nil, err
	}
	ex.Cache, ex.Source = "off", string(SourceClickHouse)
	if q.known {
		ex.Cache = "miss"
		switch key := q.prep.Key(); {
		case s.cache.Has(key):
			ex.Cache, ex.Source = "hit", string(SourceMemory)
		case s.shared != nil && s.shared.Has(ctx, key):
			ex.Cache, ex.Source = "hit", string(SourceShared)
		}
	}
	return jsonx.Marshal(ex)
}

// prepared is a query prepared for its project, at the data version of what it reads when that
// is known (then prep is At it).
type prepared struct {
	prep    *engine.Prepared
	version facts.Version
	known   bool
}

func (s *Service) prepare(ctx context.Context, scope engine.Scope, in engine.QueryInput) (prepared, error) {
	prep, err := s.engine.Prepare(scope, in)
	if err != nil {
		return prepared{}, err
	}
	version, known, err := s.version(ctx, scope.ProjectID, prep)
	if err != nil {
		return prepared{}, err
	}
	if known {
		prep = prep.At(version)
	}
	return prepared{prep: prep, version: version, known: known}, nil
}

// version is the data version of the days prep reads, and false when answers are not cached
// or versions are unknown (then the answer is read, neither kept nor tagged).
func (s *Service) version(ctx context.Context, projectID string, prep *engine.Prepared) (facts.Version, bool, error) {
	if s.cache == nil {
		return 0, false, nil
	}
	var version facts.Version
	var buf [2]engine.DayRange                      // the query's and its comparison period's
	for _, days := range prep.AppendDays(buf[:0]) { // a sum of sums still only grows
		v, known, err := s.versions.Of(ctx, projectID, days.First, days.After)
		if err != nil || !known {
			return 0, false, err
		}
		version += v
	}
	return version, true, nil
}

// tag is an answer's ETag: equal tags are answers to the same query at the same data version,
// whose bytes are equal, except in the milliseconds between a write landing in ClickHouse and
// its version move reaching this server (a read then sees the new data at the old version: see
// docs/querying.md, "The answer cache").
func tag(key string) string {
	// Both copies on the stack: the string is the one allocation of a hit's tag.
	var in [64]byte
	sum := sha256.Sum256(append(in[:0], key...))
	var out [2 + 2*16]byte
	out[0], out[len(out)-1] = '"', '"'
	hex.Encode(out[1:len(out)-1], sum[:16])
	return string(out[:])
}
