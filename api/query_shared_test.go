package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"

	"mtk/adsync"
	"mtk/api"
	"mtk/internal/apitest/fixture"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/metrics"
	"mtk/internal/metrics/metricstest"
	"mtk/internal/testenv"
)

// sharedWorld is a cacheWorld asked through replicas sharing answers in Redis, each noting the
// statements it sends ClickHouse.
type sharedWorld struct {
	cacheWorld
	apps  []*fiber.App
	sent  []*statementLog
	heard func()
}

// newSharedWorld makes n replicas over w's stores sharing the Redis at redisURL; the first is
// measured by m (nil: none).
func newSharedWorld(t *testing.T, n int, redisURL, prefix string, m *metrics.Metrics) sharedWorld {
	e := newEnv(t)
	sw := sharedWorld{cacheWorld: cacheWorld{e: e, ow: newObjectsWorld(t, e)}}
	// The replicas read through their native connections, where each statement is noted (over
	// the HTTP reader, the default, none would be).
	e.cfg.ClickHouseHTTPURL = config.ReadsNative
	chs := make([]driver.Conn, n)
	for i := range chs {
		sw.sent = append(sw.sent, &statementLog{Conn: e.ch})
		chs[i] = sw.sent[i]
	}
	systems := e.replicasOver(chs, redisURL, prefix, m)
	for _, sys := range systems {
		sw.apps = append(sw.apps, api.New(sys.API()))
	}
	sw.heard = func() {
		for _, sys := range systems {
			fixture.Heard(t, sys)
		}
		e.heard()
	}
	sw.heard()
	return sw
}

// on asks body of replica i, checking whether it was a hit, and returns the answer with the
// statements the replica sent for it.
func (w sharedWorld) on(t *testing.T, i int, body string, hit bool) (response, []string) {
	t.Helper()
	w.sent[i].take()
	w.e.app = w.apps[i]
	r := w.expect(t, body, hit)
	return r, w.sent[i].take()
}

// explainOn explains body on replica i and returns its cache and source members ("hit shared").
func (w sharedWorld) explainOn(t *testing.T, i int, body string) string {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	in["project_id"] = w.ow.tn.project.ID
	w.e.app = w.apps[i]
	ex := w.e.do("POST", "/v3/query/explain", in, bearer(w.ow.readKey)...).JSON(t)
	return fmt.Sprint(ex["cache"], " ", ex["source"])
}

// TestSharedAnswersServeEveryReplica: an answer one replica read is the other replica's first
// answer, without a ClickHouse statement, byte for byte a fresh read with the same ETag, and
// says where it came from (Server-Timing's source: clickhouse, shared, then memory; explain's
// cache and source alike); after
// a sync batch moves the data version, the replica asked first reads the new answer and the
// other serves it from Redis, again without a statement.
func TestSharedAnswersServeEveryReplica(t *testing.T) {
	rd := testenv.NewRedis(t)
	m := metrics.New(clock.Real{}, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	w := newSharedWorld(t, 2, rd.URL, rd.Prefix, m)
	queries := []string{cacheWeek, cachePast, cacheUSD}
	check := func(when string, first, second int) map[string]string {
		t.Helper()
		bodies := map[string]string{}
		for _, q := range queries {
			if src := w.explainOn(t, second, q); src != "miss clickhouse" {
				t.Fatalf("%s, %s: explain before any read says %s", when, q, src)
			}
			read, sent := w.on(t, first, q, false)
			if len(sent) == 0 {
				t.Fatalf("%s, %s: a miss sent no statement", when, q)
			}
			if src := w.explainOn(t, second, q); src != "hit shared" {
				t.Fatalf("%s, %s: explain on replica %d after replica %d read says %s", when, q, second, first, src)
			}
			shared, sent := w.on(t, second, q, true)
			if len(sent) != 0 {
				t.Fatalf("%s, %s: replica %d's first answer sent %q", when, q, second, sent)
			}
			again, _ := w.on(t, second, q, true)
			for _, a := range []struct {
				r    response
				want string
			}{{read, "clickhouse"}, {shared, "shared"}, {again, "memory"}} {
				if got := timingDesc(a.r, "source"); got != a.want {
					t.Fatalf("%s, %s: Server-Timing %q, want source %s", when, q, a.r.Header.Get("Server-Timing"), a.want)
				}
			}
			if src := w.explainOn(t, second, q); src != "hit memory" {
				t.Fatalf("%s, %s: explain on replica %d after its hit says %s", when, q, second, src)
			}
			if string(shared.Body) != string(read.Body) || shared.Header.Get("ETag") != read.Header.Get("ETag") {
				t.Fatalf("%s, %s: the shared answer differs:\n%s\n%s", when, q, read.Body, shared.Body)
			}
			if f := w.fresh(t, q); string(f.Body) != string(read.Body) {
				t.Fatalf("%s, %s: a fresh read differs:\n%s\n%s", when, q, f.Body, read.Body)
			}
			bodies[q] = string(read.Body)
		}
		return bodies
	}
	before := check("before the sync", 0, 1)

	// A sync 30 minutes later lands today's new spend; every replica hears the move.
	w.e.clock.Advance(30 * time.Minute)
	if _, err := w.ow.syncer.Run(context.Background(), w.ow.alpha, adsync.Options{}); err != nil {
		t.Fatal(err)
	}
	w.heard()
	// The past week's days did not move: both replicas still hold its answer.
	for i := range w.apps {
		if r, sent := w.on(t, i, cachePast, true); string(r.Body) != before[cachePast] || len(sent) != 0 {
			t.Fatalf("replica %d: the past week moved: %d statements", i, len(sent))
		}
	}
	queries = []string{cacheWeek, cacheUSD}
	after := check("after the sync", 1, 0)
	if after[cacheWeek] == before[cacheWeek] {
		t.Fatal("the sync landed nothing the week's answer shows")
	}
	// Replica 0 read three answers for the tier, then served two from it.
	w.e.app = w.apps[0]
	f := metricstest.Parse(t, strings.NewReader(string(w.e.do("GET", "/metrics", nil).Body)))
	for name, want := range map[string]float64{"mtk_answers_shared_hits_total": 2, "mtk_answers_shared_misses_total": 3,
		"mtk_answers_shared_waits_total": 0, "mtk_answers_shared_errors_total": 0} {
		if v, ok := f.Value(name); !ok || v != want {
			t.Errorf("replica 0's %s = %v (%v), want %v", name, v, ok, want)
		}
	}
}

// TestSharedAnswersRedisDownOrSlow: with the shared tier's Redis refusing connections, or
// accepting them and never answering, every query is answered and then kept by its replica as
// without the tier; the failure is counted and logged once.
func TestSharedAnswersRedisDownOrSlow(t *testing.T) {
	for name, url := range map[string]string{"down": "redis://" + testenv.ClosedPort(t), "slow": "redis://" + testenv.Stalled(t)} {
		t.Run(name, func(t *testing.T) {
			m := metrics.New(clock.Real{}, slog.New(slog.NewJSONHandler(io.Discard, nil)))
			w := newSharedWorld(t, 1, url, "mtk:", m)
			for _, q := range []string{cacheWeek, cachePast, cacheUSD} {
				miss, _ := w.on(t, 0, q, false)
				if hit, sent := w.on(t, 0, q, true); string(hit.Body) != string(miss.Body) || len(sent) != 0 {
					t.Fatalf("%s: the replica's own cache: %d statements,\n%s\n%s", q, len(sent), miss.Body, hit.Body)
				}
			}
			f := metricstest.Parse(t, strings.NewReader(string(w.e.do("GET", "/metrics", nil).Body)))
			if v, ok := f.Value("mtk_answers_shared_errors_total"); !ok || v < 1 {
				t.Fatalf("mtk_answers_shared_errors_total = %v (%v)", v, ok)
			}
			if n := strings.Count(w.e.logs.String(), "shared answers: Redis failed"); n != 1 {
				t.Fatalf("%d log lines of the failure, want 1:\n%s", n, w.e.logs)
			}
		})
	}
}
