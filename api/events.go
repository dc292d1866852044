package api

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/api/idempotency"
	"mtk/ingest/events"
	"mtk/internal/apperr"
	"mtk/internal/auth"
)

const targetKey = "mtk.event_target"

// eventRoutes registers the event routes: POST /v3/tracking/events (API key or public),
// POST /v3/tracking/containers/{id}/events (API key), the legacy public POST
// /v2/public/tracking/events, and CORS preflight for the public ones. Every one takes an
// Idempotency-Key, scoped to the API key, or to the container for public calls.
func (s *server) eventRoutes(app *fiber.App, v3 fiber.Router, v2public fiber.Handler) {
	idem := idempotency.New(idempotency.Config{Store: idempotency.NewStore(s.platform.Pool()), Clock: s.clock,
		Scope: eventScope})
	write := require(auth.ScopeTrackingWrite, workspaceRequired)
	v3.Options("/tracking/events", s.eventsPreflight)
	v3.Post("/tracking/events", s.eventTarget, idem, s.trackEvent)
	v3.Post("/tracking/containers/:container_id/events", write, s.containerTarget, idem, s.trackEvent)
	app.Options("/v2/public/tracking/events", v2public, s.eventsPreflight)
	app.Post("/v2/public/tracking/events", v2public, s.publicTarget, idem, s.trackEvent)
}

// eventScope scopes public calls' idempotency keys to their container.
func eventScope(c *fiber.Ctx) (string, error) {
	if p := auth.From(c); p == nil || p.Kind == auth.KindPublic {
		return idempotency.ContainerScope(c.Locals(targetKey).(events.Target).Container.ID), nil
	}
	return idempotency.DefaultScope(c)
}

// eventTarget resolves the container of POST /v3/tracking/events: from the key's workspace with
// a credential (which must hold tracking:write), from the body's domain without one.
func (s *server) eventTarget(c *fiber.Ctx) error {
	if credential(c) == "" {
		return s.publicTarget(c)
	}
	return require(auth.ScopeTrackingWrite, workspaceRequired)(c)
}

// domainOf reads the body's domain member; a malformed body is left to the handler's decoding.
func domainOf(c *fiber.Ctx) string {
	var b struct {
		Domain string `json:"domain"`
	}
	_ = json.Unmarshal(c.Body(), &b) //nolint:errcheck // trackEvent reports a bad body
	return b.Domain
}

// publicTarget resolves a public call's container from the body's domain, and checks a browser's
// Origin against the container's hosts.
func (s *server) publicTarget(c *fiber.Ctx) error {
	if p := auth.From(c); p == nil {
		auth.Set(c, &auth.Principal{Kind: auth.KindPublic, ClientIP: c.IP()})
	}
	t, err := s.events.PublicTarget(c.UserContext(), domainOf(c))
	if err != nil {
		return err
	}
	if origin := c.Get(fiber.HeaderOrigin); origin != "" {
		if !t.Container.AcceptsHost(events.HostOf(origin)) {
			return apperr.Forbidden(apperr.CodeAccessDenied, "This origin may not send events for this domain.")
		}
		allowOrigin(c, origin)
	}
	c.Locals(targetKey, t)
	return c.Next()
}

// containerTarget resolves the container named in the path, within the caller's workspace.
func (s *server) containerTarget(c *fiber.Ctx) error {
	t, err := s.events.ContainerTarget(c.UserContext(), workspaceOf(c), c.Params("container_id"))
	if err != nil {
		return err
	}
	c.Locals(targetKey, t)
	return c.Next()
}

// trackEvent stores one event: 200 {success, event_id, lead_id, timestamp}.
func (s *server) trackEvent(c *fiber.Ctx) error {
	var in events.Input
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if r, ok := idempotency.RequestOf(c); ok && strings.TrimSpace(in.EventID) == "" {
		in.EventID = events.IdempotentEventID(r.Scope, r.Key)
	}
	t, ok := c.Locals(targetKey).(events.Target)
	if !ok { // an API key on POST /v3/tracking/events
		var err error
		if t, err = s.events.KeyTarget(c.UserContext(), workspaceOf(c), in.Domain); err != nil {
			return err
		}
	}
	meta := events.Meta{ClientIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent)}
	if rc := idempotency.ReceiptOf(c); rc != nil {
		meta.Receipt = rc // the answer is stored in the event's own transaction
	}
	r, err := s.events.Track(c.UserContext(), t, in, meta, c.Body())
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// eventsPreflight answers a browser's CORS preflight: 204 allowing the origin when a live
// container takes events from its host, 403 otherwise.
func (s *server) eventsPreflight(c *fiber.Ctx) error {
	origin := c.Get(fiber.HeaderOrigin)
	if _, err := s.events.PublicTarget(c.UserContext(), origin); err != nil || origin == "" {
		return apperr.Forbidden(apperr.CodeAccessDenied, "This origin may not send events.")
	}
	allowOrigin(c, origin)
	c.Set(fiber.HeaderAccessControlAllowMethods, "POST, OPTIONS")
	c.Set(fiber.HeaderAccessControlAllowHeaders, "Content-Type, Idempotency-Key")
	c.Set(fiber.HeaderAccessControlMaxAge, "600")
	return c.SendStatus(fiber.StatusNoContent)
}

func allowOrigin(c *fiber.Ctx, origin string) {
	c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
	c.Set(fiber.HeaderVary, fiber.HeaderOrigin)
}
