package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api"
	"mtk/client"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/jsonlog"
	"mtk/internal/wire"
)

// server is the API running in this process on a loopback port, wired as `mtk serve` wires it,
// with rate limits off (MTK_RATE_LIMITS=off) unless serverOptions.redis keeps them in Redis.
type server struct {
	app *fiber.App
	sys *wire.System
	url string
}

// serverOptions are what the runs change in the server.
type serverOptions struct {
	// cache and grain are MTK_QUERY_CACHE and MTK_QUERY_CACHE_GRAIN (zero: their defaults).
	cache config.Toggle
	grain string
	// clock is the server's (nil: the wall clock).
	clock clock.Clock
	// workers runs the outbox workers (the fact and event drainers) as mtk serve does.
	workers bool
	// log receives the request log (nil: it is formatted and discarded).
	log io.Writer
	// redis, when set, is MTK_REDIS_URL with the rate limits on (MTK_SHARED_ANSWERS off).
	redis string
}

// startServer serves the API on 127.0.0.1 at a free port, built as `mtk serve` builds it
// (wire.Build) over pg and ch; its engine is svc's twin. Request logs are formatted as in
// production (JSON through slog) and written to o.log, or discarded.
func startServer(pg *pgxpool.Pool, ch driver.Conn, chURL, pgURL string, o serverOptions) (*server, error) {
	cfg := config.Config{Listen: "127.0.0.1:0", ClickHouseURL: chURL, PostgresURL: pgURL, RateLimits: config.Off,
		JWTSecret: "query-benchmark-secret-query-benchmark", BaseURL: "http://127.0.0.1",
		QueryCache: o.cache, QueryCacheGrain: o.grain}
	if o.redis != "" {
		cfg.RedisURL, cfg.RateLimits, cfg.SharedAnswers = o.redis, config.On, config.Off
	}
	logOut := o.log
	if logOut == nil {
		logOut = io.Discard
	}
	sys, err := wire.Build(cfg, pg, ch, wire.Options{Clock: o.clock, Logger: slog.New(jsonlog.New(logOut, nil))})
	if err != nil {
		return nil, err
	}
	if o.workers {
		if err := sys.StartWorkers(); err != nil {
			sys.Close()
			return nil, err
		}
	}
	app := api.New(sys.API())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sys.Close()
		return nil, err
	}
	go app.Listener(ln) //nolint:errcheck // ends with Shutdown
	return &server{app: app, sys: sys, url: "http://" + ln.Addr().String()}, nil
}

func (s *server) close() error {
	err := s.app.ShutdownWithTimeout(5 * time.Second)
	s.sys.Close() // stops the workers, if any, and waits for them
	return err
}

// httpPath sends the mix's queries to POST /v3/query with an API key, through mtk's Go client
// with retries off (a retry would hide a failure). It takes the answers' bodies as they come
// (RawRequest): decoding the rows is the client's work, not the server's.
type httpPath struct {
	client *client.Client
	bodies [][]byte
}

func newHTTPPath(s *server, token string, mix []query, clients int) (*httpPath, error) {
	p := &httpPath{client: client.New(s.url, client.WithAPIKey(token), client.WithMaxRetries(0), client.WithHTTPClient(&http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, DisableCompression: true,
			IdleConnTimeout: time.Minute},
	}))}
	for _, q := range mix {
		b, err := json.Marshal(q.Input)
		if err != nil {
			return nil, err
		}
		p.bodies = append(p.bodies, b)
	}
	return p, nil
}

// answer is the part of a query's answer that the benchmark checks.
type answer struct {
	Success  bool              `json:"success"`
	Data     []json.RawMessage `json:"data"`
	Warnings []string          `json:"warnings"`
}

// post sends query i and returns the body of a 200 answer.
func (p *httpPath) post(ctx context.Context, i int) ([]byte, error) {
	return p.client.RawRequest(ctx, http.MethodPost, "/v3/query", p.bodies[i])
}

func (p *httpPath) send(ctx context.Context, i int) error {
	_, err := p.post(ctx, i)
	return err
}

// check asks query i once and refuses an answer without rows or with a warning (a fallback to
// another table, a missing rate): the benchmark must time the answers it means to.
func (p *httpPath) check(ctx context.Context, i int) (rows int, err error) {
	body, err := p.post(ctx, i)
	if err != nil {
		return 0, err
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return 0, err
	}
	if !a.Success || len(a.Data) == 0 || len(a.Warnings) > 0 {
		return 0, fmt.Errorf("unexpected answer (rows %d, warnings %q)", len(a.Data), a.Warnings)
	}
	return len(a.Data), nil
}
