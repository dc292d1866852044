package testenv

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"mtk/internal/ids"
)

// DefaultRedisURL is the Redis that scripts/services.sh starts.
const DefaultRedisURL = "redis://127.0.0.1:16379"

// Redis is a test's share of the Redis server (MTK_TEST_REDIS_URL, else DefaultRedisURL): its
// keys start with Prefix, so that tests and runs sharing the server never see each other's.
type Redis struct {
	URL    string
	Prefix string
	Client *redis.Client
}

// NewRedis checks that the server answers (failing the test when it does not) and deletes the
// test's keys when it ends.
func NewRedis(t testing.TB) Redis {
	t.Helper()
	u := os.Getenv("MTK_TEST_REDIS_URL")
	if u == "" {
		u = DefaultRedisURL
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("testenv: MTK_TEST_REDIS_URL: %v", err)
	}
	client := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		t.Fatalf("testenv: redis at %s does not answer; run `make services`: %v", u, err)
	}
	r := Redis{URL: u, Prefix: "test_" + ids.Random(8) + ":", Client: client}
	t.Cleanup(func() {
		defer client.Close()
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		iter := client.Scan(cctx, 0, r.Prefix+"*", 1000).Iterator()
		for iter.Next(cctx) {
			client.Del(cctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("testenv: redis cleanup: %v", err)
		}
	})
	return r
}
