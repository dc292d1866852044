package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"mtk/api/ratelimit"
	"mtk/internal/auth"
	"mtk/platform"
)

// redisHits is the -hits-redis row: runHits's HTTP load against a second server whose rate
// limits are on and kept in Redis (MTK_REDIS_URL=redisURL, the shared answers off: a hit is
// served from memory before they are asked), as replicas run: every request then makes one
// Redis round trip (one script that INCRs and sets the expiry, ratelimit.Redis.Take). It
// returns the run and what redis-server (the process listening on redisURL's port) spent
// meanwhile.
//
// A key may make platform.RequestsPerMinute(enterprise) requests a window, which the load passes
// in a tenth of a second; the load spreads its requests over keys enough keys that none is
// refused (keysFor), all of the tenant's workspace, so that every request reads the same answer.
// Each key is verified from PostgreSQL once per platform.KeyCacheTTL, a few dozen reads a
// second against thousands of hits.
func redisHits(ctx context.Context, st *benchStores, redisURL string, body []byte, d time.Duration) (httpRun, time.Duration, error) {
	run := httpRun{path: fmt.Sprintf("HTTP, %d connections, rate limits in Redis", hitsConns)}
	pid, err := redisPID(redisURL)
	if err != nil {
		return run, 0, err
	}
	srv, err := startServer(st.pg, st.ch, st.chURL, st.pgURL, serverOptions{redis: redisURL})
	if err != nil {
		return run, 0, err
	}
	defer srv.close() //nolint:errcheck
	keys := make([]string, keysFor(d))
	for i := range keys {
		k, err := srv.sys.Store.Keys.CreateAPIKey(ctx, st.t.workspace.ID, "query benchmark, Redis rate limits", []string{auth.ScopeDataRead}, nil)
		if err != nil {
			return run, 0, err
		}
		defer srv.sys.Store.Keys.RevokeAPIKey(context.WithoutCancel(ctx), k.ID) //nolint:errcheck // a leftover key of a bench database
		keys[i] = k.Token
	}
	if err := srv.sys.Versions.Heard(ctx); err != nil { // answers are cached once versions are known
		return run, 0, err
	}
	// The first answer is read and kept (the load wants every answer a hit), every key verified.
	handler := srv.app.Handler()
	for _, key := range append(keys[:1:1], keys...) {
		req, err := hitsRequest(body, key)
		if err != nil {
			return run, 0, err
		}
		var rc fasthttp.RequestCtx
		rc.Init(req, hitsClient, nil)
		handler(&rc)
		if rc.Response.StatusCode() != fasthttp.StatusOK {
			return run, 0, fmt.Errorf("status %d: %s", rc.Response.StatusCode(), rc.Response.Body())
		}
	}
	r0, err := procCPU(pid)
	if err != nil {
		return run, 0, err
	}
	run.res, run.use, run.calls, err = httpHits(ctx, strings.TrimPrefix(srv.url, "http://"), strings.Join(keys, ","), body, hitsConns, d, false)
	if err != nil {
		return run, 0, err
	}
	r1, err := procCPU(pid)
	return run, r1 - r0, err
}

// keysFor is how many keys a load of d needs so that none reaches its limit in a window: at
// most 20,000 requests a second, over at most two windows' worth of d.
func keysFor(d time.Duration) int {
	perKey := platform.RequestsPerMinute(platform.TierEnterprise)
	return int(20000*min(d, ratelimit.Window).Seconds())/perKey + 1
}

// redisPID finds the redis-server listening on redisURL's port, by its process title
// ("redis-server host:port"), which redis-server sets.
func redisPID(redisURL string) (int, error) {
	u, err := url.Parse(redisURL)
	if err != nil {
		return 0, err
	}
	_, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return 0, fmt.Errorf("-hits-redis %q: %w", redisURL, err)
	}
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if title := string(b); strings.HasPrefix(title, "redis-server ") && strings.Contains(title, ":"+port) {
			return strconv.Atoi(filepath.Base(filepath.Dir(p)))
		}
	}
	return 0, fmt.Errorf("-hits-redis: no redis-server process listening on port %s on this machine", port)
}

// procCPU is the user and system time process pid has used, from /proc/<pid>/stat (in clock
// ticks of 10 ms, Linux's USER_HZ on every architecture Go supports but alpha and ia64).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name (in parentheses, which may hold spaces): utime and
	// stime are the 14th and 15th of the line, the 12th and 13th after the name.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	fields := strings.Fields(rest)
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
