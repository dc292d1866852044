package api

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/db"
)

// errorBody is the contract's error envelope.
type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Type      apperr.Type `json:"type"`
	Code      string      `json:"code"`
	Message   string      `json:"message"`
	Details   []string    `json:"details"`
	RequestID string      `json:"request_id"`
}

// legacyBody is the {error, message} body that the spec gives the projects and connections
// listings for 401 and 403.
type legacyBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// errorStyleKey holds a route's errorStyle when it is not the envelope.
const errorStyleKey = "mtk.error_style"

// errorStyle is how a route words its errors.
type errorStyle int

const (
	// styleEnvelope is the contract's envelope, on every route that sets no other style.
	styleEnvelope errorStyle = iota
	// styleLegacy: the {error, message} body that the spec gives the projects and connections
	// listings for 401 and 403 (the envelope otherwise).
	styleLegacy
	// styleOAuth: RFC 6749 section 5.2's {error, error_description}, which every OAuth client
	// library parses, on the token and revocation endpoints.
	styleOAuth
	// stylePage: the consent page's HTML error step, on /oauth/authorize (a browser's route).
	stylePage
)

// withErrorStyle marks the route's errors to be rendered in style.
func withErrorStyle(style errorStyle) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(errorStyleKey, style)
		return c.Next()
	}
}

// legacyErrors marks a route whose 401 and 403 answers use the {error, message} body.
var legacyErrors = withErrorStyle(styleLegacy)

// endpointStyles are the styles of the OAuth endpoints, by method and path: every error there is
// worded in the endpoint's protocol, also those raised before routing (the text checks), so the
// style is known from the request line (routing is exact) rather than set by the route.
var endpointStyles = map[[2]string]errorStyle{
	{fiber.MethodGet, pathAuthorize}:  stylePage,
	{fiber.MethodPost, pathAuthorize}: stylePage,
	{fiber.MethodPost, pathToken}:     styleOAuth,
	{fiber.MethodPost, pathRevoke}:    styleOAuth,
}

// styleOf is how the request's errors are worded: as its route or handler marked them, else as
// its endpoint's, else in the envelope.
func styleOf(c *fiber.Ctx) errorStyle {
	if style, ok := c.Locals(errorStyleKey).(errorStyle); ok {
		return style
	}
	return endpointStyles[[2]string{c.Method(), c.Path()}]
}

// storeRetryAfter is the Retry-After, in seconds, of a 503 for an unreachable store.
const storeRetryAfter = 5

// toAppError maps any error to what the client may see; an error that is not an *apperr.Error
// becomes a 503 or a 500 that wraps it, so that the renderer logs it.
func toAppError(err error) *apperr.Error {
	if e, ok := apperr.As(err); ok {
		return e
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case http.StatusNotFound:
			return apperr.NotFound("No such route.")
		case http.StatusMethodNotAllowed:
			return &apperr.Error{Status: fe.Code, Type: apperr.TypeValidation, Code: apperr.CodeInvalidParameter, Message: "Method not allowed on this route."}
		}
		if fe.Code >= 400 && fe.Code < 500 { // its message is never shown: Fiber's may quote the request
			return apperr.InvalidRequest(fe.Code, http.StatusText(fe.Code)+".")
		}
	}
	if db.Unavailable(err) {
		return apperr.Unavailable("A data store is unavailable; retry shortly.", storeRetryAfter).WithCause(err)
	}
	return apperr.Internal().WithCause(err)
}

// challenge is the WWW-Authenticate of a 401: RFC 6750 section 3's Bearer challenge, with
// error="invalid_token" when the request presented a credential that was refused (not for a
// wrong login password, which is no bearer credential); an OAuth client's invalid_client is
// challenged to HTTP Basic (RFC 6749 section 5.2), whichever way the client authenticated.
func challenge(c *fiber.Ctx, e *apperr.Error) string {
	switch {
	case e.Code == apperr.CodeInvalidClient:
		return `Basic realm="mtk"`
	case e.Code != apperr.CodeInvalidCredentials && credentialPresented(c):
		return `Bearer realm="mtk", error="invalid_token"`
	}
	return `Bearer realm="mtk"`
}

// errorHandler renders every error as the contract's envelope (or the legacy body on the routes
// that use it), with the request id. A 5xx is logged here, once, with its cause, which the client
// never sees: the server's failures are the operator's to read, the client's mistakes are not.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		e := toAppError(err)
		if e.Status >= http.StatusInternalServerError {
			logFailure(log, c, e)
		}
		if e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
		}
		if e.Status == http.StatusUnauthorized {
			c.Set(fiber.HeaderWWWAuthenticate, challenge(c, e))
		}
		c.Status(e.Status)
		switch style := styleOf(c); {
		case style == styleOAuth:
			return renderOAuthError(c, e)
		case style == stylePage:
			return renderErrorPage(c, e.Status, e.Message)
		case style == styleLegacy && e.Status == http.StatusUnauthorized:
			return c.JSON(legacyBody{Error: "unauthorized", Message: e.Message})
		case style == styleLegacy && e.Status == http.StatusForbidden:
			return c.JSON(legacyBody{Error: "forbidden", Message: e.Message})
		}
		return c.JSON(errorBody{Error: errorObject{
			Type: e.Type, Code: e.Code, Message: e.Message, Details: e.Shown(), RequestID: requestID(c),
		}})
	}
}

// logFailure logs a 5xx answer with its request id and cause (the message itself when there is
// none, as for an overload that no error caused).
func logFailure(log *slog.Logger, c *fiber.Ctx, e *apperr.Error) {
	cause := e.Message
	if e.Err != nil {
		cause = e.Err.Error()
	}
	log.Error("request failed", "request_id", requestID(c), "method", c.Method(), "path", c.Path(),
		"status", e.Status, "code", e.Code, "error", cause)
}
