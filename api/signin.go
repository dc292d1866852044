package api

import (
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/api/ratelimit"
	"mtk/internal/apperr"
	"mtk/platform"
)

// The per-account limit on password guessing: after passwordFailures failed passwords for one
// e-mail within any passwordWindow, that e-mail is refused until the oldest of them is that old.
// It holds for every e-mail, registered or not, so that its answer says nothing of which exist;
// the in-process counter keeps at most passwordKeys e-mails.
const (
	passwordFailures = 10
	passwordWindow   = 15 * time.Minute
	passwordKeys     = 100_000
)

// limits sets s.passwords, the per-e-mail limit, and returns the request limits' configuration:
// both on s.Limits' Redis when it is set (shared by every replica), else in-process.
func (s *server) limits() ratelimit.Config {
	cfg := ratelimit.Config{Limiter: ratelimit.NewMemory(), Clock: s.Clock, Enabled: s.Config.RateLimitsOn(), Log: s.Log}
	s.passwords = ratelimit.NewMemoryFailures(passwordFailures, passwordWindow, passwordKeys)
	if s.Limits != nil {
		cfg.Limiter = s.Limits
		s.passwords = s.Limits.Failures(passwordFailures, passwordWindow)
	}
	if m := s.Metrics; m != nil {
		cfg.Failed = func() { m.RateLimitFailed("requests") }
		s.passwordsFailed = func() { m.RateLimitFailed("passwords") }
	}
	return cfg
}

// checkPassword is platform.Login behind the per-e-mail limit, for every way of signing in with a
// password (POST /v3/auth/login, the consent page). A refused e-mail is 429 rate_limit_exceeded
// with Retry-After, and its password is not checked. A success clears that e-mail's failures, so
// that its owner's earlier typos do not count against them later; it cannot help a guesser, who
// never succeeds. An attempt that fails for another reason (a store outage) counts as a failure.
// The limit is a security control: MTK_RATE_LIMITS=off leaves it on.
func (s *server) checkPassword(c *fiber.Ctx, email, password string) (platform.User, string, error) {
	ctx, now, key := c.UserContext(), s.Clock.Now(), platform.NormalizeEmail(email)
	d, err := s.passwords.Attempt(ctx, key, now)
	switch {
	case err != nil: // fail open, as the request limits do: a limiter outage must not stop sign-ins
		s.Log.Error("password limit: limiter failed; attempt let through", "err", err.Error(), "request_id", requestID(c))
		if s.passwordsFailed != nil {
			s.passwordsFailed()
		}
	case !d.Allowed:
		wait := ratelimit.RetryAfter(d.RetryAt, now)
		return platform.User{}, "", apperr.Throttled(fmt.Sprintf(
			"Too many failed sign-ins for this e-mail: try again in %d seconds.", wait), wait)
	}
	user, role, err := s.Users.Login(ctx, email, password)
	if err != nil {
		return user, role, err
	}
	if err := s.passwords.Clear(ctx, key); err != nil {
		s.Log.Error("password limit: clearing failed", "err", err.Error(), "request_id", requestID(c))
	}
	return user, role, nil
}

// logout revokes the login token that the call is made with (POST /v3/auth/logout): 204, and
// the token is refused from then on. The user's other tokens keep working. An API key cannot log
// out (403): it is revoked with `mtk key revoke`, or as a connected platform.
func (s *server) logout(c *fiber.Ctx) error {
	p, err := authenticated(c)
	if err != nil {
		return err
	}
	if p.Login == nil {
		return apperr.Forbidden(apperr.CodeAccessDenied, "Logout revokes the login token (JWT) it is called with; an API key is revoked with mtk key revoke.")
	}
	if err := s.Users.RevokeLoginToken(c.UserContext(), *p.Login); err != nil {
		return err
	}
	c.Status(fiber.StatusNoContent)
	return nil
}
