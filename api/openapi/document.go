package openapi

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

//go:embed openapi.json
var document []byte

// Document returns the OpenAPI document as JSON. The caller must not modify it.
func Document() []byte { return document }

// ServeDocument answers GET /v3/openapi.json. It takes no credential and is not rate limited:
// register it before the /v3 group's middleware.
func ServeDocument(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(document)
}
