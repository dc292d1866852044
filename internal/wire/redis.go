package wire

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisWait bounds one exchange with Redis (dial, read or write). Limits fail open when Redis
// does not answer, so a limit decided late is worse than none: a dead Redis must cost a request
// this much, not go-redis's defaults of a 5 s dial tried four times.
const redisWait = 250 * time.Millisecond

// redisOptions reads MTK_REDIS_URL with those bounds and no retries; the URL's own
// dial_timeout, read_timeout, write_timeout and max_retries win.
func redisOptions(raw string) (*redis.Options, error) {
	ro, err := redis.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	for name, d := range map[string]*time.Duration{"dial_timeout": &ro.DialTimeout, "read_timeout": &ro.ReadTimeout,
		"write_timeout": &ro.WriteTimeout} {
		if !q.Has(name) {
			*d = redisWait
		}
	}
	if !q.Has("max_retries") {
		ro.MaxRetries = -1 // go-redis: -1 is no retries (0 means its default of 3)
	}
	return ro, nil
}

// redisLog sends go-redis's own messages (one per failed dial) to the debug level: the limiter
// already logs and counts every request it let through because Redis failed.
type redisLog struct{}

func (redisLog) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}

func init() { redis.SetLogger(redisLog{}) }
