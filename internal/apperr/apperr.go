// Package apperr defines the few typed errors that cross package boundaries in mtk. Each carries
// the API's error type and code, and may wrap the cause that the client does not see; api/ maps
// them to an HTTP status and the contract's envelope in one place (api/errors.go), and logs the
// cause of every 5xx there. Anything that is not an *Error is an internal error: logged, never shown.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
)

// Type is the envelope's error.type.
type Type string

// The error types of the spec.
const (
	TypeAuthentication Type = "authentication_error"
	TypeAuthorization  Type = "authorization_error"
	TypeValidation     Type = "validation_error"
	TypeNotFound       Type = "not_found_error"
	TypeConflict       Type = "conflict_error"
	TypeRateLimit      Type = "rate_limit_error"
	TypeAPI            Type = "api_error"
)

// The error codes of the spec and the contract.
const (
	CodeInvalidAPIKey       = "invalid_api_key"
	CodeInvalidToken        = "invalid_token"
	CodeExpiredAPIKey       = "expired_api_key"
	CodeInvalidCredentials  = "invalid_credentials"
	CodeInsufficientScope   = "insufficient_scope"
	CodeAccessDenied        = "access_denied"
	CodeMissingParameter    = "missing_parameter"
	CodeInvalidParameter    = "invalid_parameter"
	CodeInvalidRequest      = "invalid_request"
	CodeInvalidSource       = "invalid_source"
	CodeResourceNotFound    = "resource_not_found"
	CodeIdempotencyConflict = "idempotency_conflict"
	CodeRateLimitExceeded   = "rate_limit_exceeded"
	CodeInternal            = "internal_error"
	CodeServiceUnavailable  = "service_unavailable"
)

// The OAuth 2.0 error codes (RFC 6749 section 5.2) that the token and revocation endpoints
// answer with. The rest of RFC 6749's codes are mapped from the codes above where they are
// rendered (api/oauth.go).
const (
	CodeInvalidGrant         = "invalid_grant"
	CodeInvalidClient        = "invalid_client"
	CodeUnauthorizedClient   = "unauthorized_client"
	CodeUnsupportedGrantType = "unsupported_grant_type"
)

// Error is an error a client may see. Status is the HTTP status; Details has one line per problem.
type Error struct {
	Status  int
	Type    Type
	Code    string
	Message string
	Details []string
	// More counts the problems beyond Details, which holds at most MaxDetails (Problems).
	More int
	// RetryAfter, in seconds, is sent as the Retry-After header when positive.
	RetryAfter int
	// Err is the cause: logged by the renderer, never shown to the client.
	Err error
	// template is the shared value WithCause copied, so that errors.Is still finds it.
	template *Error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s/%s: %s", e.Type, e.Code, e.Message)
	if len(e.Details) > 0 {
		msg = fmt.Sprintf("%s %v", msg, e.Shown())
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether e was made from target by WithCause, so that a package's shared error values
// can be told apart after a cause was attached.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && e.template != nil && e.template == t
}

// WithCause is a copy of e that wraps err; e itself, often a shared value, is left as it is.
func (e *Error) WithCause(err error) *Error {
	c := *e
	c.Err = err
	if c.template == nil {
		c.template = e
	}
	return &c
}

// As returns the *Error inside err, if there is one.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Validation is a 400 validation_error with one detail line per problem.
// Details beyond MaxDetails are only counted, and each line is cut to MaxDetailLen characters.
func Validation(code, message string, details ...string) *Error {
	kept, more := keep(details)
	return &Error{Status: http.StatusBadRequest, Type: TypeValidation, Code: code, Message: message, Details: kept, More: more}
}

// Invalid is a 400 invalid_parameter.
func Invalid(message string, details ...string) *Error {
	return Validation(CodeInvalidParameter, message, details...)
}

// InvalidRequest is an invalid_request: a request that is not HTTP the server can read (a
// malformed request line or header, a header section too large), answered with status.
func InvalidRequest(status int, message string) *Error {
	return &Error{Status: status, Type: TypeValidation, Code: CodeInvalidRequest, Message: message}
}

// Missing is a 400 missing_parameter.
func Missing(message string, details ...string) *Error {
	return Validation(CodeMissingParameter, message, details...)
}

// Unauthenticated is a 401 authentication_error.
func Unauthenticated(code, message string) *Error {
	return &Error{Status: http.StatusUnauthorized, Type: TypeAuthentication, Code: code, Message: message}
}

// InvalidGrant is a 400 invalid_grant: an authorization code that is unknown, expired, used,
// or not the caller's (RFC 6749 section 5.2).
func InvalidGrant(message string) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeValidation, Code: CodeInvalidGrant, Message: message}
}

// InvalidClient is a 401 invalid_client: an OAuth client that is unknown, revoked, or failed to
// authenticate.
func InvalidClient(message string) *Error {
	return Unauthenticated(CodeInvalidClient, message)
}

// Forbidden is a 403 authorization_error.
func Forbidden(code, message string) *Error {
	return &Error{Status: http.StatusForbidden, Type: TypeAuthorization, Code: code, Message: message}
}

// NotFound is a 404 resource_not_found.
func NotFound(message string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeNotFound, Code: CodeResourceNotFound, Message: message}
}

// Conflict is a 409 conflict_error.
func Conflict(code, message string) *Error {
	return &Error{Status: http.StatusConflict, Type: TypeConflict, Code: code, Message: message}
}

// RateLimited is a 429 with the spec's message and a Retry-After.
func RateLimited(limit, retryAfter int) *Error {
	return Throttled(fmt.Sprintf("Rate limit exceeded. Maximum %d requests per 60s.", limit), retryAfter)
}

// Throttled is a 429 rate_limit_exceeded with its own message and a Retry-After.
func Throttled(message string, retryAfter int) *Error {
	return &Error{
		Status: http.StatusTooManyRequests, Type: TypeRateLimit, Code: CodeRateLimitExceeded,
		Message: message, RetryAfter: retryAfter,
	}
}

// Unavailable is a 503 for a store or dependency that does not answer.
func Unavailable(message string, retryAfter int) *Error {
	return &Error{
		Status: http.StatusServiceUnavailable, Type: TypeAPI, Code: CodeServiceUnavailable,
		Message: message, RetryAfter: retryAfter,
	}
}

// Internal is the 500 a client sees for anything unexpected.
func Internal() *Error {
	return &Error{Status: http.StatusInternalServerError, Type: TypeAPI, Code: CodeInternal, Message: "An internal error occurred."}
}
