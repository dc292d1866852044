package api

import (
	"github.com/gofiber/fiber/v2"

	"mtk/adsync"
	"mtk/internal/auth"
)

// objectRoutes registers PUT /v3/connections/{id}/objects: scope data:write (a JWT needs
// X-Workspace-Id), with Idempotency-Key.
func (s *server) objectRoutes(v3 fiber.Router) {
	idem := s.idempotent(nil)
	v3.Put("/connections/:connection_id/objects", require(auth.ScopeDataWrite, workspaceRequired), idem, s.updateObjects)
}

// updateObjects pauses, activates or changes budgets of a connection's campaigns, ad sets or
// ads. The path takes the connection id or the first network's ad account id.
func (s *server) updateObjects(c *fiber.Ctx) error {
	conn, err := s.Connections.ConnectionIn(c.UserContext(), []string{workspaceOf(c)}, c.Params("connection_id"))
	if err != nil {
		return err
	}
	var in adsync.ObjectsInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	p := auth.From(c)
	actor := adsync.Actor{Kind: "api_key", ID: p.KeyID}
	if p.Kind == auth.KindJWT {
		actor = adsync.Actor{Kind: "user", ID: p.UserID}
	}
	res, err := s.Objects.Apply(c.UserContext(), conn, in, actor)
	if err != nil {
		return err
	}
	return c.JSON(res)
}
