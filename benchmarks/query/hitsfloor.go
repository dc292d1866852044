package main

import (
	"context"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// floorHits is the -hits run's reference: a plain fasthttp server in this process, with nothing
// of mtk but the connection timeouts given (mtk's, or none: fasthttp's defaults), answering
// every request with hit (the answer, its status and headers as mtk served it), loaded over HTTP
// as mtk was. Its CPU per hit is what the sockets, the Go runtime's network poller and fasthttp
// cost alone: the floor of mtk's. Timeouts cost their deadlines: three per request (idle, read,
// write), each a runtime timer moved.
func floorHits(ctx context.Context, hit *fasthttp.Response, timeouts fiber.Config, key string, body []byte, d time.Duration, syscalls bool) (hitsLoadResult, usage, map[string]int64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return hitsLoadResult{}, usage{}, nil, err
	}
	srv := &fasthttp.Server{Handler: func(rc *fasthttp.RequestCtx) { hit.CopyTo(&rc.Response) },
		ReadTimeout: timeouts.ReadTimeout, WriteTimeout: timeouts.WriteTimeout, IdleTimeout: timeouts.IdleTimeout}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	defer srv.Shutdown()
	return httpHits(ctx, ln.Addr().String(), key, body, hitsConns, d, syscalls)
}
