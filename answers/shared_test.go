package answers

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"mtk/internal/testenv"
)

// sharedOn is a replica's tier on the test's Redis, its log lines in log.
func sharedOn(t *testing.T, rd testenv.Redis, cfg SharedConfig, log io.Writer) *Shared {
	t.Helper()
	opts, err := redis.ParseURL(rd.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := NewShared(opts, rd.Prefix, cfg, slog.New(slog.NewJSONHandler(log, nil)))
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSharedSingleFlightAcrossReplicas: of two replicas missing the same answer, one claims it
// and the other waits until it is kept, then gets the same bytes without reading it.
func TestSharedSingleFlightAcrossReplicas(t *testing.T) {
	rd := testenv.NewRedis(t)
	a, b := sharedOn(t, rd, SharedConfig{}, io.Discard), sharedOn(t, rd, SharedConfig{}, io.Discard)
	ctx := context.Background()
	key := "query\x00\x01version"
	if _, ok, claim := a.Fetch(ctx, key); ok || claim.token == "" {
		t.Fatalf("first lookup: found %v, claim %+v", ok, claim)
	} else {
		got := make(chan []byte)
		go func() {
			body, _, _ := b.Fetch(ctx, key)
			got <- body
		}()
		// Keep once b waits, so that the answer it gets is the one it waited for.
		for deadline := time.Now().Add(10 * time.Second); b.Stats().Waits == 0; {
			if time.Now().After(deadline) {
				t.Fatal("b never waited for a's claim")
			}
			time.Sleep(time.Millisecond) // polling b's counts: the condition waited on
		}
		claim.Keep(ctx, []byte(`{"success":true}`))
		if body := <-got; string(body) != `{"success":true}` {
			t.Fatalf("b got %q", body)
		}
	}
	if s := b.Stats(); s.Hits != 1 || s.Waits != 1 || s.Misses != 0 || s.Errors != 0 {
		t.Fatalf("b's counts %+v", s)
	}
	if body, ok, _ := a.Fetch(ctx, key); !ok || string(body) != `{"success":true}` {
		t.Fatalf("a's own lookup: %v %q", ok, body)
	}
	if n, err := rd.Client.Exists(ctx, a.keys(key)[1]).Result(); err != nil || n != 0 {
		t.Fatalf("the claim outlived the answer: %d %v", n, err)
	}
}

// TestSharedClaimDroppedOrGone: a replica whose claim is dropped (its read failed) or whose
// owner never answers reads the answer itself, after the bounded wait at most.
func TestSharedClaimDroppedOrGone(t *testing.T) {
	rd := testenv.NewRedis(t)
	a := sharedOn(t, rd, SharedConfig{}, io.Discard)
	b := sharedOn(t, rd, SharedConfig{Await: 50 * time.Millisecond}, io.Discard)
	ctx := context.Background()
	_, _, claim := a.Fetch(ctx, "dropped")
	claim.Drop(ctx)
	if _, ok, c := b.Fetch(ctx, "dropped"); ok || c.token == "" {
		t.Fatalf("after a drop: found %v, claimed %v", ok, c.token != "")
	}
	// a claims and dies: b waits its bound, then reads without a claim and still shares.
	a.Fetch(ctx, "gone")
	_, ok, c := b.Fetch(ctx, "gone")
	if ok || c.token != "" || c.s == nil {
		t.Fatalf("owner gone: found %v, claim %+v", ok, c)
	}
	c.Keep(ctx, []byte("read by b"))
	if body, ok, _ := a.Fetch(ctx, "gone"); !ok || string(body) != "read by b" {
		t.Fatalf("b's answer is not shared: %v %q", ok, body)
	}
	if s := b.Stats(); s.Waits != 1 || s.Misses != 2 {
		t.Fatalf("b's counts %+v", s)
	}
}

// TestSharedRedisDownOrStalled: a Redis refusing connections or accepting them and never
// answering makes every lookup a miss without a claim, counted, logged once, and skipped while
// the tier is paused.
func TestSharedRedisDownOrStalled(t *testing.T) {
	for name, url := range map[string]string{"down": "redis://" + testenv.ClosedPort(t), "stalled": "redis://" + testenv.Stalled(t)} {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			s := sharedOn(t, testenv.Redis{URL: url, Prefix: "x:"}, SharedConfig{Pause: time.Hour}, &log)
			ctx := context.Background()
			for range 3 {
				if _, ok, c := s.Fetch(ctx, "k"); ok || c.token != "" {
					t.Fatalf("found %v, claimed %v", ok, c.token != "")
				}
				s.Unclaimed("k").Keep(ctx, []byte("x"))
			}
			if st := s.Stats(); st.Errors != 1 || st.Hits != 0 {
				t.Fatalf("counts %+v: want one failed exchange, then the tier skipped", st)
			}
			if n := strings.Count(log.String(), "shared answers: Redis failed"); n != 1 {
				t.Fatalf("%d log lines of the failure:\n%s", n, log.String())
			}
		})
	}
}
