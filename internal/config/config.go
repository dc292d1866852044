// Package config reads mtk's configuration from the environment, in one place, and validates it.
package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"mtk/schema"
)

// Defaults match scripts/services.sh (make services).
const (
	DefaultListen        = "127.0.0.1:8080"
	DefaultClickHouseURL = "clickhouse://127.0.0.1:19000/mtk"
	DefaultPostgresURL   = "postgres://postgres@127.0.0.1:15432/mtk?sslmode=disable"
	DefaultDataDir       = ".data"
	DefaultAdsimURL      = "http://127.0.0.1:18900"
)

// Config is the whole of mtk's configuration.
type Config struct {
	// Listen is the HTTP address (MTK_LISTEN).
	Listen string
	// ClickHouseURL is a clickhouse:// DSN for the native protocol (MTK_CLICKHOUSE_URL).
	ClickHouseURL string
	// ClickHouseCluster names the ClickHouse cluster (in the servers' remote_servers) that the
	// database is spread over, empty for one server (MTK_CLICKHOUSE_CLUSTER).
	ClickHouseCluster string
	// ClickHouseHTTPURL is ClickHouse's HTTP interface, over which the engine reads
	// (MTK_CLICKHOUSE_HTTP_URL): empty derives it from ClickHouseURL, "off" reads over the native
	// protocol (ClickHouseReadURL). Writes always use the native protocol.
	ClickHouseHTTPURL string
	// PostgresURL is a postgres:// connection string (MTK_POSTGRES_URL).
	PostgresURL string
	// JWTSecret signs login tokens (MTK_JWT_SECRET). In development it is generated once and
	// kept in DataDir/jwt-secret.
	JWTSecret string
	// BaseURL is the public address of this service, used in webhook URLs (MTK_BASE_URL);
	// it defaults to http://<Listen>.
	BaseURL string
	// RateLimits turns rate limiting on (the default) or off (MTK_RATE_LIMITS).
	RateLimits Toggle
	// RedisURL is a redis:// URL (MTK_REDIS_URL) of the Redis that keeps the rate limits shared
	// by every replica; empty keeps them in-process.
	RedisURL string
	// TrustedProxies are the addresses or CIDR ranges of the load balancers in front of mtk
	// (MTK_TRUSTED_PROXIES, comma-separated). A request from one of them is counted against the
	// client address in its X-Forwarded-For, which the balancer must set (not append to); from
	// anyone else the header is ignored, so that a client cannot choose its own limit.
	TrustedProxies []string
	// DataDir holds local state such as the development JWT secret (MTK_DATA).
	DataDir string
	// AdsimURL is where the ad network simulator serves, for `mtk seed demo` (MTK_ADSIM_URL).
	AdsimURL string
	// DemoShop serves the demo shop at /demo-shop/ (MTK_DEMO_SHOP: on, or off, the default;
	// `make run` sets it on).
	DemoShop bool
	// Metrics and MetricsAddr are where GET /metrics is served (MTK_METRICS): on Listen when
	// Metrics is on (the default), nowhere when it is off (and nothing is measured), on a
	// listener of its own when MTK_METRICS is a host:port (MetricsAddr).
	Metrics     Toggle
	MetricsAddr string
	// QuerySlots is how many query statements this server runs on ClickHouse at once
	// (MTK_QUERY_CONCURRENCY: "auto" or a number from 1 to 1000); 0 is auto, the ClickHouse
	// server's cores plus one (engine.Options.MaxConcurrent).
	QuerySlots int
	// EventOutboxMax, FactOutboxMax and JourneyOutboxMax bound the rows waiting in PostgreSQL for
	// ClickHouse (MTK_EVENT_OUTBOX_MAX, MTK_FACT_OUTBOX_MAX, MTK_JOURNEY_OUTBOX_MAX; 0 is
	// outbox.DefaultMaxRows): past them, events and orders are refused with 503 and Retry-After
	// until the drainers make room.
	EventOutboxMax, FactOutboxMax, JourneyOutboxMax int64
	// QueryCache is on (the default) or off (MTK_QUERY_CACHE): whether /v3/query answers are
	// kept and served again while their data version stands (see package answers).
	QueryCache Toggle
	// QueryCacheMB bounds the answer cache's memory in MiB (MTK_QUERY_CACHE_MB; 0 is
	// DefaultQueryCacheMB).
	QueryCacheMB int64
	// QueryCacheGrain is how fine the data versions that key the answers are
	// (MTK_QUERY_CACHE_GRAIN): "day" (the default: a write moves the answers that read its local
	// day) or "project" (a write moves all of its project's answers), for measuring what the
	// finer grain buys.
	QueryCacheGrain string
	// SharedAnswers is on (the default) or off (MTK_SHARED_ANSWERS): whether the replicas
	// share cached answers through MTK_REDIS_URL's server, when it is set (answers.Shared).
	SharedAnswers Toggle
	// DrainPartitions is how many partitions, by project, the event and fact outboxes are
	// drained in (MTK_DRAIN_PARTITIONS, 1 to MaxDrainPartitions; 0 is 1), so that several
	// workers drain at once (outbox.Drainer.Partitions).
	DrainPartitions int
	// StoreTimeout bounds every call a request makes to a store, from the request's start
	// (MTK_STORE_TIMEOUT, a duration such as 5s or 1500ms; 0 means DefaultStoreTimeout): past
	// it the request is answered 503 with Retry-After. It also bounds a query's ClickHouse
	// statements, their wait for a turn included, and the storing of one batch of events.
	StoreTimeout time.Duration
	// written holds the numeric variables as written, by name, for Validate's messages: a value
	// FromEnv could not parse is kept as -1, which Validate refuses.
	written map[string]string
}

// MaxDrainPartitions bounds DrainPartitions: a partition's drain reads the outbox in id order
// and skips the other partitions' rows, so more partitions read more.
const MaxDrainPartitions = 64

// DefaultStoreTimeout is StoreTimeout when MTK_STORE_TIMEOUT is unset.
const DefaultStoreTimeout = 5 * time.Second

// Bounds of StoreTimeout: shorter would fail healthy requests, longer leaves clients hanging.
const (
	minStoreTimeout = 100 * time.Millisecond
	maxStoreTimeout = 5 * time.Minute
)

// StoreDeadline is StoreTimeout, or DefaultStoreTimeout when it is 0.
func (c Config) StoreDeadline() time.Duration {
	if c.StoreTimeout <= 0 {
		return DefaultStoreTimeout
	}
	return c.StoreTimeout
}

// DefaultQueryCacheMB is the answer cache's bound when MTK_QUERY_CACHE_MB is unset.
const DefaultQueryCacheMB = 256

// QueryCacheOn reports whether /v3/query answers are cached.
func (c Config) QueryCacheOn() bool { return c.QueryCache.Or(true) }

// QueryCacheBytes is the answer cache's bound in bytes.
func (c Config) QueryCacheBytes() int64 {
	if c.QueryCacheMB > 0 {
		return c.QueryCacheMB << 20
	}
	return DefaultQueryCacheMB << 20
}

// QueryCacheByProject reports whether data versions are kept per project instead of per day.
func (c Config) QueryCacheByProject() bool { return c.QueryCacheGrain == "project" }

// SharedAnswersOn reports whether cached answers are shared by the replicas through Redis.
func (c Config) SharedAnswersOn() bool {
	return c.RedisURL != "" && c.QueryCacheOn() && c.SharedAnswers.Or(true)
}

// RateLimitsOn reports whether requests are rate limited.
func (c Config) RateLimitsOn() bool { return c.RateLimits.Or(true) }

// MetricsOn reports whether metrics are kept and served.
func (c Config) MetricsOn() bool { return c.Metrics.Or(true) }

// MetricsListen is the address of the listener of its own that serves /metrics; empty when
// /metrics is served on Listen, or not at all.
func (c Config) MetricsListen() string {
	if !c.MetricsOn() {
		return ""
	}
	return c.MetricsAddr
}

// FromEnv reads the configuration from the environment, filling defaults. It does not validate.
func FromEnv() Config {
	c := Config{
		Listen:            env("MTK_LISTEN", DefaultListen),
		ClickHouseURL:     env("MTK_CLICKHOUSE_URL", DefaultClickHouseURL),
		ClickHouseCluster: env("MTK_CLICKHOUSE_CLUSTER", ""),
		ClickHouseHTTPURL: env("MTK_CLICKHOUSE_HTTP_URL", ""),
		PostgresURL:       env("MTK_POSTGRES_URL", DefaultPostgresURL),
		JWTSecret:         os.Getenv("MTK_JWT_SECRET"),
		BaseURL:           os.Getenv("MTK_BASE_URL"),
		RedisURL:          env("MTK_REDIS_URL", ""),
		DataDir:           env("MTK_DATA", DefaultDataDir),
		AdsimURL:          strings.TrimRight(env("MTK_ADSIM_URL", DefaultAdsimURL), "/"),
		QueryCacheGrain:   strings.ToLower(env("MTK_QUERY_CACHE_GRAIN", "day")),
		written:           map[string]string{},
	}
	c.RateLimits, c.QueryCache = c.toggle("MTK_RATE_LIMITS"), c.toggle("MTK_QUERY_CACHE")
	c.SharedAnswers = c.toggle("MTK_SHARED_ANSWERS")
	c.DemoShop = c.toggle("MTK_DEMO_SHOP").Or(false)
	// MTK_METRICS is on, off or an address of its own.
	if m, err := ParseToggle(env("MTK_METRICS", "")); err == nil {
		c.Metrics = m
	} else {
		c.MetricsAddr = env("MTK_METRICS", "")
	}
	if raw := strings.ToLower(env("MTK_QUERY_CONCURRENCY", "auto")); raw != "auto" {
		c.QuerySlots = int(c.count("MTK_QUERY_CONCURRENCY", raw))
	}
	c.EventOutboxMax = c.count("MTK_EVENT_OUTBOX_MAX", env("MTK_EVENT_OUTBOX_MAX", ""))
	c.FactOutboxMax = c.count("MTK_FACT_OUTBOX_MAX", env("MTK_FACT_OUTBOX_MAX", ""))
	c.JourneyOutboxMax = c.count("MTK_JOURNEY_OUTBOX_MAX", env("MTK_JOURNEY_OUTBOX_MAX", ""))
	c.QueryCacheMB = c.count("MTK_QUERY_CACHE_MB", env("MTK_QUERY_CACHE_MB", ""))
	c.DrainPartitions = int(c.count("MTK_DRAIN_PARTITIONS", env("MTK_DRAIN_PARTITIONS", "")))
	for _, p := range strings.Split(env("MTK_TRUSTED_PROXIES", ""), ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.TrustedProxies = append(c.TrustedProxies, p)
		}
	}
	if raw := env("MTK_STORE_TIMEOUT", ""); raw != "" {
		c.written["MTK_STORE_TIMEOUT"] = raw
		d, err := time.ParseDuration(raw)
		if err != nil {
			d = -1
		}
		c.StoreTimeout = d
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Listen
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// count parses the variable name's value raw as a count of 1 or more, 0 when it is empty and -1
// when it is no such count, and keeps raw for Validate's message.
func (c Config) count(name, raw string) int64 {
	if raw == "" {
		return 0
	}
	c.written[name] = raw
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 1 {
		return -1
	}
	return n
}

// shown is the variable name's value as written, else v.
func (c Config) shown(name string, v any) string {
	if raw, ok := c.written[name]; ok {
		return raw
	}
	return fmt.Sprint(v)
}

func env(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

// Validate names every bad value at once.
func (c Config) Validate() error {
	var problems []string
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		problems = append(problems, fmt.Sprintf("MTK_LISTEN %q: want host:port", c.Listen))
	}
	if err := checkURL(c.ClickHouseURL, "clickhouse"); err != nil {
		problems = append(problems, "MTK_CLICKHOUSE_URL: "+err.Error())
	}
	if err := c.checkHTTPURL(); err != nil {
		problems = append(problems, err.Error())
	}
	if c.ClickHouseCluster != "" && !schema.ValidClusterName(c.ClickHouseCluster) {
		problems = append(problems, fmt.Sprintf("MTK_CLICKHOUSE_CLUSTER %q: use letters, digits, _, . and -", c.ClickHouseCluster))
	}
	if err := checkURL(c.PostgresURL, "postgres", "postgresql"); err != nil {
		problems = append(problems, "MTK_POSTGRES_URL: "+err.Error())
	}
	if err := checkURL(c.BaseURL, "http", "https"); err != nil {
		problems = append(problems, "MTK_BASE_URL: "+err.Error())
	}
	if len(c.JWTSecret) < 32 {
		problems = append(problems, "MTK_JWT_SECRET: must be at least 32 characters")
	}
	if c.QuerySlots < 0 || c.QuerySlots > 1000 {
		problems = append(problems, fmt.Sprintf("MTK_QUERY_CONCURRENCY %q: want auto or a number from 1 to 1000",
			c.shown("MTK_QUERY_CONCURRENCY", c.QuerySlots)))
	}
	for name, v := range map[string]int64{"MTK_EVENT_OUTBOX_MAX": c.EventOutboxMax, "MTK_FACT_OUTBOX_MAX": c.FactOutboxMax,
		"MTK_JOURNEY_OUTBOX_MAX": c.JourneyOutboxMax} {
		if v < 0 {
			problems = append(problems, fmt.Sprintf("%s %q: want a number of rows, 1 or more", name, c.shown(name, v)))
		}
	}
	if c.DrainPartitions < 0 || c.DrainPartitions > MaxDrainPartitions {
		problems = append(problems, fmt.Sprintf("MTK_DRAIN_PARTITIONS %q: want a number from 1 to %d",
			c.shown("MTK_DRAIN_PARTITIONS", c.DrainPartitions), MaxDrainPartitions))
	}
	for _, p := range c.TrustedProxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			problems = append(problems, fmt.Sprintf("MTK_TRUSTED_PROXIES %q: want IP addresses or CIDR ranges, comma-separated", p))
		}
	}
	problems = append(problems, c.badToggles()...)
	if c.QueryCacheMB < 0 {
		problems = append(problems, fmt.Sprintf("MTK_QUERY_CACHE_MB %q: want a number of MiB, 1 or more",
			c.shown("MTK_QUERY_CACHE_MB", c.QueryCacheMB)))
	}
	if c.QueryCacheGrain != "" && c.QueryCacheGrain != "day" && c.QueryCacheGrain != "project" {
		problems = append(problems, fmt.Sprintf("MTK_QUERY_CACHE_GRAIN %q: want day or project", c.QueryCacheGrain))
	}
	if c.StoreTimeout < 0 || c.StoreTimeout > 0 && (c.StoreTimeout < minStoreTimeout || c.StoreTimeout > maxStoreTimeout) {
		problems = append(problems, fmt.Sprintf("MTK_STORE_TIMEOUT %q: want a duration from %s to %s, such as 5s",
			c.shown("MTK_STORE_TIMEOUT", c.StoreTimeout), minStoreTimeout, maxStoreTimeout))
	}
	if c.RedisURL != "" {
		if _, err := redis.ParseURL(c.RedisURL); err != nil {
			problems = append(problems, fmt.Sprintf("MTK_REDIS_URL %q: %v", c.RedisURL, err))
		}
	}
	if c.MetricsListen() != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			problems = append(problems, fmt.Sprintf("MTK_METRICS %q: want on, off or host:port", c.MetricsAddr))
		} else if c.MetricsAddr == c.Listen {
			problems = append(problems, fmt.Sprintf("MTK_METRICS %q: is MTK_LISTEN; use on to serve /metrics there", c.MetricsAddr))
		}
	}
	if len(problems) > 0 {
		return errors.New("invalid configuration:\n  " + strings.Join(problems, "\n  "))
	}
	return nil
}

func checkURL(raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL", raw)
	}
	for _, s := range schemes {
		if u.Scheme == s {
			if u.Host == "" {
				return fmt.Errorf("%q has no host", raw)
			}
			return nil
		}
	}
	return fmt.Errorf("%q: want a %s:// URL", raw, strings.Join(schemes, ":// or "))
}

// EnsureJWTSecret fills an empty JWTSecret from DataDir/jwt-secret, creating that file with a
// random secret the first time. Production deployments set MTK_JWT_SECRET instead.
func (c *Config) EnsureJWTSecret() error {
	if c.JWTSecret != "" {
		return nil
	}
	path := filepath.Join(c.DataDir, "jwt-secret")
	if b, err := os.ReadFile(path); err == nil {
		c.JWTSecret = strings.TrimSpace(string(b))
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	secret := hex.EncodeToString(buf)
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", c.DataDir, err)
	}
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	c.JWTSecret = secret
	return nil
}
