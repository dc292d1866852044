package api

import (
	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
)

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
	if err := s.platform.RevokeLoginToken(c.UserContext(), *p.Login); err != nil {
		return err
	}
	c.Status(fiber.StatusNoContent)
	return nil
}
