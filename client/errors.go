package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The error types of the contract's envelope.
const (
	ErrorTypeAuthentication = "authentication_error"
	ErrorTypeAuthorization  = "authorization_error"
	ErrorTypeValidation     = "validation_error"
	ErrorTypeNotFound       = "not_found_error"
	ErrorTypeConflict       = "conflict_error"
	ErrorTypeRateLimit      = "rate_limit_error"
	ErrorTypeAPI            = "api_error"
)

// The error codes of the contract.
const (
	CodeInvalidAPIKey       = "invalid_api_key"
	CodeExpiredAPIKey       = "expired_api_key"
	CodeInvalidToken        = "invalid_token"
	CodeInvalidCredentials  = "invalid_credentials"
	CodeInsufficientScope   = "insufficient_scope"
	CodeAccessDenied        = "access_denied"
	CodeMissingParameter    = "missing_parameter"
	CodeInvalidParameter    = "invalid_parameter"
	CodeInvalidSource       = "invalid_source"
	CodeResourceNotFound    = "resource_not_found"
	CodeIdempotencyConflict = "idempotency_conflict"
	CodeRateLimitExceeded   = "rate_limit_exceeded"
	CodeInternalError       = "internal_error"
	CodeServiceUnavailable  = "service_unavailable"
)

// Error is an error answer of the API.
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Type and Code are the envelope's (ErrorType…, Code…). The listings of projects and
	// connections answer 401 and 403 with {error, message}: then Code holds that error
	// ("unauthorized" or "forbidden") and Type is the one its status has elsewhere.
	Type string
	Code string
	// Message is meant for people.
	Message string
	// Details has one line per problem, each starting with the member it names
	// ("fields[1]: unknown metric \"foo\"").
	Details []string
	// RequestID is the answer's X-Request-Id, to quote to support.
	RequestID string
	// RetryAfter is the answer's Retry-After (429 and 503), 0 without one.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mtk: %d", e.StatusCode)
	if e.Type != "" || e.Code != "" {
		fmt.Fprintf(&b, " %s/%s", e.Type, e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.Details) > 0 {
		b.WriteString(" (" + strings.Join(e.Details, "; ") + ")")
	}
	if e.RequestID != "" {
		b.WriteString(" [request " + e.RequestID + "]")
	}
	return b.String()
}

// Params lists the members that Details names, in order: what Stripe calls param.
func (e *Error) Params() []string {
	var out []string
	for _, d := range e.Details {
		if member, _, ok := strings.Cut(d, ": "); ok {
			out = append(out, member)
		}
	}
	return out
}

// envelope reads both error bodies: {"error": {...}} and the legacy {"error": "…", "message"}.
type envelope struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

type envelopeError struct {
	Type      string   `json:"type"`
	Code      string   `json:"code"`
	Message   string   `json:"message"`
	Details   []string `json:"details"`
	RequestID string   `json:"request_id"`
}

// parseError makes the *Error of a non-2xx answer. A body in neither shape (a proxy's page)
// keeps its status, with the status text and the start of the body as message.
func parseError(status int, h http.Header, body []byte, retryAfter time.Duration) *Error {
	e := &Error{StatusCode: status, RequestID: h.Get("X-Request-Id"), RetryAfter: retryAfter}
	var env envelope
	if json.Unmarshal(body, &env) == nil && len(env.Error) > 0 {
		var obj envelopeError
		var legacy string
		switch {
		case json.Unmarshal(env.Error, &obj) == nil:
			e.Type, e.Code, e.Message, e.Details = obj.Type, obj.Code, obj.Message, obj.Details
			if obj.RequestID != "" {
				e.RequestID = obj.RequestID
			}
			return e
		case json.Unmarshal(env.Error, &legacy) == nil:
			e.Type, e.Code, e.Message = typeOfStatus(status), legacy, env.Message
			return e
		}
	}
	e.Type = typeOfStatus(status)
	text := strings.TrimSpace(string(body))
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	e.Message = http.StatusText(status)
	if text != "" {
		e.Message += ": " + text
	}
	return e
}

// typeOfStatus is the envelope type that goes with an HTTP status.
func typeOfStatus(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return ErrorTypeValidation
	case http.StatusUnauthorized:
		return ErrorTypeAuthentication
	case http.StatusForbidden:
		return ErrorTypeAuthorization
	case http.StatusNotFound:
		return ErrorTypeNotFound
	case http.StatusConflict:
		return ErrorTypeConflict
	case http.StatusTooManyRequests:
		return ErrorTypeRateLimit
	}
	return ErrorTypeAPI
}

// AsError returns err's *Error, if it holds one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func hasStatus(err error, status int) bool {
	e, ok := AsError(err)
	return ok && e.StatusCode == status
}

// IsRateLimited reports a 429 answer (after the retries, if any).
func IsRateLimited(err error) bool { return hasStatus(err, http.StatusTooManyRequests) }

// IsUnavailable reports a 503 answer: a store of the API is down; retry later.
func IsUnavailable(err error) bool { return hasStatus(err, http.StatusServiceUnavailable) }

// IsNotFound reports a 404 answer.
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsAuthentication reports a 401 answer: no, a bad, a revoked or an expired credential.
func IsAuthentication(err error) bool { return hasStatus(err, http.StatusUnauthorized) }

// IsPermission reports a 403 answer: a missing scope, or another workspace's resource.
func IsPermission(err error) bool { return hasStatus(err, http.StatusForbidden) }

// IsValidation reports a 400 answer; Error.Details names each problem.
func IsValidation(err error) bool { return hasStatus(err, http.StatusBadRequest) }

// IsIdempotencyConflict reports a 409: the key was used for another request, or its first call
// is still running.
func IsIdempotencyConflict(err error) bool {
	e, ok := AsError(err)
	return ok && e.Code == CodeIdempotencyConflict
}
