package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaultsAreValid(t *testing.T) {
	for _, v := range []string{"MTK_LISTEN", "MTK_CLICKHOUSE_URL", "MTK_POSTGRES_URL", "MTK_BASE_URL", "MTK_RATE_LIMITS", "MTK_METRICS", "MTK_QUERY_CONCURRENCY", "MTK_EVENT_OUTBOX_MAX", "MTK_FACT_OUTBOX_MAX", "MTK_JOURNEY_OUTBOX_MAX", "MTK_QUERY_CACHE", "MTK_QUERY_CACHE_MB", "MTK_QUERY_CACHE_GRAIN", "MTK_SHARED_ANSWERS", "MTK_STORE_TIMEOUT", "MTK_DRAIN_PARTITIONS"} {
		t.Setenv(v, "")
	}
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	c := FromEnv()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8080" || c.BaseURL != "http://127.0.0.1:8080" || !c.RateLimitsOn() ||
		!c.MetricsOn() || c.MetricsListen() != "" || c.QuerySlots != 0 {
		t.Fatalf("defaults %+v", c)
	}
	if c.EventOutboxMax != 0 || c.FactOutboxMax != 0 || c.JourneyOutboxMax != 0 {
		t.Fatalf("defaults %+v", c)
	}
	if !c.QueryCacheOn() || c.QueryCacheBytes() != 256<<20 || c.QueryCacheByProject() {
		t.Fatalf("answer cache defaults %+v", c)
	}
	if c.StoreDeadline() != 5*time.Second {
		t.Fatalf("store timeout %s, want 5s", c.StoreDeadline())
	}
}

func TestValidateNamesEveryBadValue(t *testing.T) {
	c := Config{
		Listen: "nope", ClickHouseURL: "http://x:1", PostgresURL: "mysql://x", JWTSecret: "short",
		BaseURL: "ftp://x", MetricsAddr: "yes", QuerySlots: 1001,
		EventOutboxMax: -1, FactOutboxMax: -1, JourneyOutboxMax: -1, QueryCacheMB: -1, QueryCacheGrain: "hour",
		StoreTimeout: time.Hour, DrainPartitions: MaxDrainPartitions + 1,
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"MTK_LISTEN", "MTK_CLICKHOUSE_URL", "MTK_POSTGRES_URL", "MTK_JWT_SECRET", "MTK_BASE_URL", "MTK_METRICS", "MTK_QUERY_CONCURRENCY", "MTK_EVENT_OUTBOX_MAX", "MTK_FACT_OUTBOX_MAX", "MTK_JOURNEY_OUTBOX_MAX", "MTK_QUERY_CACHE_MB", "MTK_QUERY_CACHE_GRAIN", "MTK_STORE_TIMEOUT", "MTK_DRAIN_PARTITIONS"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
}

func TestQueryConcurrency(t *testing.T) {
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	for env, want := range map[string]int{"auto": 0, "AUTO": 0, "3": 3, "1000": 1000} {
		t.Setenv("MTK_QUERY_CONCURRENCY", env)
		if c := FromEnv(); c.QuerySlots != want || c.Validate() != nil {
			t.Errorf("MTK_QUERY_CONCURRENCY=%s: %d slots, validate %v", env, c.QuerySlots, c.Validate())
		}
	}
	for _, env := range []string{"0", "-2", "1001", "many"} {
		t.Setenv("MTK_QUERY_CONCURRENCY", env)
		if FromEnv().Validate() == nil {
			t.Errorf("MTK_QUERY_CONCURRENCY=%s accepted", env)
		}
	}
}

func TestStoreTimeout(t *testing.T) {
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	for env, want := range map[string]time.Duration{"": 5 * time.Second, "2s": 2 * time.Second,
		"1500ms": 1500 * time.Millisecond, "100ms": 100 * time.Millisecond, "5m": 5 * time.Minute} {
		t.Setenv("MTK_STORE_TIMEOUT", env)
		if c := FromEnv(); c.StoreDeadline() != want || c.Validate() != nil {
			t.Errorf("MTK_STORE_TIMEOUT=%s: %s, validate %v", env, c.StoreDeadline(), c.Validate())
		}
	}
	for _, env := range []string{"5", "soon", "-1s", "10ms", "6m"} {
		t.Setenv("MTK_STORE_TIMEOUT", env)
		if err := FromEnv().Validate(); err == nil || !strings.Contains(err.Error(), "MTK_STORE_TIMEOUT \""+env+"\"") {
			t.Errorf("MTK_STORE_TIMEOUT=%s: %v", env, err)
		}
	}
}

func TestRateLimitsOff(t *testing.T) {
	t.Setenv("MTK_RATE_LIMITS", "OFF")
	if FromEnv().RateLimitsOn() {
		t.Fatal("MTK_RATE_LIMITS=OFF leaves limits on")
	}
}

// Every on/off variable is read once into a Toggle: on and off in any case, empty its default;
// anything else is a startup error naming the variable and what it takes.
func TestToggles(t *testing.T) {
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	setting := map[string]func(Config) bool{
		"MTK_RATE_LIMITS": Config.RateLimitsOn,
		"MTK_QUERY_CACHE": Config.QueryCacheOn,
		// Shared answers also need MTK_REDIS_URL (SharedAnswersOn); the toggle alone is read here.
		"MTK_SHARED_ANSWERS": func(c Config) bool { return c.SharedAnswers.Or(true) },
		"MTK_DEMO_SHOP":      func(c Config) bool { return c.DemoShop },
	}
	defaults := map[string]bool{"MTK_RATE_LIMITS": true, "MTK_QUERY_CACHE": true, "MTK_SHARED_ANSWERS": true, "MTK_DEMO_SHOP": false}
	for _, name := range toggles {
		on := setting[name]
		for raw, want := range map[string]bool{"": defaults[name], "on": true, " On ": true, "off": false, "OFF": false} {
			t.Setenv(name, raw)
			if c := FromEnv(); on(c) != want || c.Validate() != nil {
				t.Errorf("%s=%q: on %v, validate %v", name, raw, on(c), c.Validate())
			}
		}
		for _, raw := range []string{"yes", "1", "true", "of"} {
			t.Setenv(name, raw)
			err := FromEnv().Validate()
			if err == nil || !strings.Contains(err.Error(), name+` "`+raw+`": want on or off`) {
				t.Errorf("%s=%q: %v", name, raw, err)
			}
		}
		t.Setenv(name, "")
	}
}

func TestMetricsPlaces(t *testing.T) {
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	for _, tc := range []struct {
		env, listen string
		on, valid   bool
	}{
		{"on", "", true, true},
		{"OFF", "", false, true},
		{"127.0.0.1:9464", "127.0.0.1:9464", true, true},
		{"127.0.0.1:8080", "127.0.0.1:8080", true, false}, // the API's own address
		{"9464", "9464", true, false},
	} {
		t.Setenv("MTK_LISTEN", "127.0.0.1:8080")
		t.Setenv("MTK_METRICS", tc.env)
		c := FromEnv()
		if c.MetricsOn() != tc.on || c.MetricsListen() != tc.listen || (c.Validate() == nil) != tc.valid {
			t.Errorf("MTK_METRICS=%s: on %v, listen %q, validate %v", tc.env, c.MetricsOn(), c.MetricsListen(), c.Validate())
		}
	}
}

func TestJWTSecretGeneratedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	a := Config{DataDir: filepath.Join(dir, "data")}
	if err := a.EnsureJWTSecret(); err != nil {
		t.Fatal(err)
	}
	b := Config{DataDir: a.DataDir}
	if err := b.EnsureJWTSecret(); err != nil {
		t.Fatal(err)
	}
	if len(a.JWTSecret) < 32 || a.JWTSecret != b.JWTSecret {
		t.Fatalf("secrets %q and %q", a.JWTSecret, b.JWTSecret)
	}
	info, err := os.Stat(filepath.Join(a.DataDir, "jwt-secret"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", info, err)
	}
	set := Config{DataDir: a.DataDir, JWTSecret: "from-env"}
	if err := set.EnsureJWTSecret(); err != nil || set.JWTSecret != "from-env" {
		t.Fatal("MTK_JWT_SECRET is overridden")
	}
}

func TestClickHouseCluster(t *testing.T) {
	t.Setenv("MTK_CLICKHOUSE_CLUSTER", " analytics-eu ")
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	c := FromEnv()
	if err := c.Validate(); err != nil || c.ClickHouseCluster != "analytics-eu" {
		t.Fatalf("cluster %q, %v", c.ClickHouseCluster, err)
	}
	c.ClickHouseCluster = "a b`"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "MTK_CLICKHOUSE_CLUSTER") {
		t.Fatalf("bad cluster name: %v", err)
	}
}

// MTK_REDIS_URL is optional; when set it must be a URL the Redis client accepts.
func TestRedisURL(t *testing.T) {
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	t.Setenv("MTK_REDIS_URL", "redis://127.0.0.1:16379/0")
	if c := FromEnv(); c.RedisURL != "redis://127.0.0.1:16379/0" || c.Validate() != nil {
		t.Fatalf("%q: %v", c.RedisURL, c.Validate())
	}
	for _, bad := range []string{"http://127.0.0.1:16379", "redis://127.0.0.1:16379/db"} {
		t.Setenv("MTK_REDIS_URL", bad)
		if err := FromEnv().Validate(); err == nil || !strings.Contains(err.Error(), "MTK_REDIS_URL") {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func TestTrustedProxies(t *testing.T) {
	t.Setenv("MTK_JWT_SECRET", strings.Repeat("s", 32))
	t.Setenv("MTK_TRUSTED_PROXIES", " 127.0.0.1, 10.0.0.0/8,::1 ,")
	if c := FromEnv(); !slices.Equal(c.TrustedProxies, []string{"127.0.0.1", "10.0.0.0/8", "::1"}) || c.Validate() != nil {
		t.Fatalf("%q, validate %v", c.TrustedProxies, c.Validate())
	}
	t.Setenv("MTK_TRUSTED_PROXIES", "127.0.0.1,lb.internal")
	if err := FromEnv().Validate(); err == nil || !strings.Contains(err.Error(), `MTK_TRUSTED_PROXIES "lb.internal"`) {
		t.Fatalf("a host name accepted: %v", err)
	}
}
