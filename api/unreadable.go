package api

import (
	"errors"
	"net"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"mtk/internal/apperr"
)

// refuseUnreadable answers the requests that the HTTP server could not read (a malformed request
// line or header, a header section or body over the limits), in place of Fiber's handler. That
// one hands fasthttp's error text to the error handler, and the text quotes the raw read buffer,
// which on a kept-alive connection holds the requests pipelined after the bad one, credentials
// included. This answer is made of nothing the request sent: a fixed message, a new request id
// (the request's own X-Request-Id may be part of what could not be read), the envelope.
func refuseUnreadable(app *fiber.App) func(*fasthttp.RequestCtx, error) {
	return func(fctx *fasthttp.RequestCtx, err error) {
		c := app.AcquireCtx(fctx)
		defer app.ReleaseCtx(c)
		setRequestID(c, newRequestID())
		c.Locals(errorStyleKey, styleEnvelope)
		if herr := app.ErrorHandler(c, unreadable(err)); herr != nil {
			fctx.Response.Reset()
			fctx.SetStatusCode(http.StatusInternalServerError)
		}
	}
}

// unreadable is what the client is told about a request the server could not read.
func unreadable(err error) *apperr.Error {
	var small *fasthttp.ErrSmallBuffer
	var netErr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return &apperr.Error{Status: http.StatusRequestEntityTooLarge, Type: apperr.TypeValidation,
			Code: apperr.CodeInvalidParameter, Message: "Request body too large."}
	case errors.As(err, &small):
		return apperr.InvalidRequest(http.StatusRequestHeaderFieldsTooLarge, "Request header fields too large.")
	case errors.Is(err, fasthttp.ErrTimeout), errors.As(err, &netErr) && netErr.Timeout():
		return apperr.InvalidRequest(http.StatusRequestTimeout, "Request timeout.")
	}
	return apperr.InvalidRequest(http.StatusBadRequest, "Malformed HTTP request.")
}
