package idempotency

import (
	"crypto/sha256"
	"testing"
	"time"

	"mtk/internal/testenv"
)

func request(scope, key, method, path, body string) Request {
	h := sha256.Sum256([]byte(body))
	return Request{Scope: scope, Key: key, Method: method, Path: path, BodyHash: h[:]}
}

func TestTakenOverClaimCannotSettle(t *testing.T) {
	ctx := t.Context()
	s := NewStore(testenv.Postgres(t).Pool)
	r := request("key:key_a", "k1", "POST", "/v3/things", "{}")
	stale, err := s.Begin(ctx, r, t0, Lease)
	if err != nil || stale.Outcome != Started {
		t.Fatalf("first Begin: %+v, %v", stale, err)
	}
	owner, err := s.Begin(ctx, r, t0.Add(Lease), Lease)
	if err != nil || owner.Outcome != Started {
		t.Fatalf("takeover: %+v, %v", owner, err)
	}
	if err := s.Abandon(ctx, stale); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, stale, Response{Status: 200, Body: []byte("stale")}); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Begin(ctx, r, t0.Add(Lease), Lease); err != nil || c.Outcome != InProgress {
		t.Fatalf("after the stale owner settled: %+v, %v; want the new owner still running", c, err)
	}
	if err := s.Finish(ctx, owner, Response{Status: 201, ContentType: "text/plain", Body: []byte("owner")}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Begin(ctx, r, t0.Add(Lease), Lease)
	if err != nil || c.Outcome != Replay || string(c.Response.Body) != "owner" || c.Response.Status != 201 || c.Response.ContentType != "text/plain" {
		t.Fatalf("got %+v, %v; want the new owner's answer", c, err)
	}
}

func TestPurge(t *testing.T) {
	ctx := t.Context()
	pg := testenv.Postgres(t)
	s := NewStore(pg.Pool)
	begun := []struct {
		key string
		at  time.Time
	}{
		{"old", t0},
		{"old-running", t0.Add(time.Minute)},
		{"boundary", t0.Add(time.Hour)},
		{"fresh", t0.Add(2 * time.Hour)},
	}
	for _, b := range begun {
		c, err := s.Begin(ctx, request("key:key_a", b.key, "POST", "/v3/things", "{}"), b.at, Lease)
		if err != nil {
			t.Fatal(err)
		}
		if b.key != "old-running" {
			if err := s.Finish(ctx, c, Response{Status: 200}); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := s.Purge(ctx, t0.Add(time.Hour+Window))
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("purged %d records, want 3", n)
	}
	var left []string
	rows, err := pg.Pool.Query(ctx, "SELECT key FROM idempotency_records")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		left = append(left, k)
	}
	if rows.Err() != nil || len(left) != 1 || left[0] != "fresh" {
		t.Fatalf("left %v (%v), want [fresh]", left, rows.Err())
	}
}
