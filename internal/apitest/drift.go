package apitest

import (
	"net/http"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"mtk/api/openapi/conform"
)

// drift records what the OpenAPI document does not describe in the requests a test server
// handles and in its answers (conform.Checker.Check).
type drift struct {
	checker  *conform.Checker
	mu       sync.Mutex
	problems []string
}

// watchDrift checks every request that app's server handles, and its answer, from now on.
func watchDrift(app *fiber.App) (*drift, error) {
	checker, err := conform.Load()
	if err != nil {
		return nil, err
	}
	d := &drift{checker: checker}
	next := app.Server().Handler
	app.Server().Handler = func(ctx *fasthttp.RequestCtx) {
		next(ctx)
		d.check(ctx)
	}
	return d, nil
}

// check records the problems of the request in ctx and of its answer.
func (d *drift) check(ctx *fasthttp.RequestCtx) {
	problems := d.checker.Check(string(ctx.Method()), string(ctx.RequestURI()), requestHeader(&ctx.Request.Header),
		ctx.Request.Body(), ctx.Response.StatusCode(), responseHeader(&ctx.Response.Header), ctx.Response.Body())
	if len(problems) > 0 {
		d.mu.Lock()
		d.problems = append(d.problems, problems...)
		d.mu.Unlock()
	}
}

// report fails t with the problems found; call it once the server has stopped.
func (d *drift) report(t testing.TB) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range d.problems {
		t.Errorf("apitest: %s", p)
	}
}

func requestHeader(h *fasthttp.RequestHeader) http.Header {
	out := http.Header{}
	h.VisitAll(func(k, v []byte) { out.Add(string(k), string(v)) })
	return out
}

func responseHeader(h *fasthttp.ResponseHeader) http.Header {
	out := http.Header{}
	h.VisitAll(func(k, v []byte) { out.Add(string(k), string(v)) })
	return out
}
