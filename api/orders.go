package api

import (
	"github.com/gofiber/fiber/v2"

	"mtk/ingest/orders"
)

// orderWebhook takes an order: POST /v2/tracking/generic?k=<webhook key> → 200 {success: true}.
// The key is the only credential; an unknown one is 401.
func (s *server) orderWebhook(c *fiber.Ctx) error {
	key := c.Query("k")
	var in orders.Input
	if err := decodeJSON(c, &in); err != nil {
		if _, kerr := s.Connections.ConnectionByWebhookKey(c.UserContext(), key); kerr != nil {
			return kerr // an unknown key is told first
		}
		return err
	}
	if err := s.Orders.Upsert(c.UserContext(), key, in); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true})
}
