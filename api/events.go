package api

import (
	"encoding/json"
	"errors"
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
	idem := s.idempotent(eventScope)
	write := require(auth.ScopeTrackingWrite, workspaceRequired)
	v3.Options("/tracking/events", s.eventsPreflight)
	v3.Post("/tracking/events", keyOrPublic(write), s.withTarget, idem, s.trackEvent)
	v3.Post("/tracking/containers/:container_id/events", write, s.withTarget, idem, s.trackEvent)
	app.Options("/v2/public/tracking/events", v2public, s.eventsPreflight)
	app.Post("/v2/public/tracking/events", v2public, keyOrPublic(nil), s.withTarget, idem, s.trackEvent)
}

// keyOrPublic lets a call without a credential through as public, and one with a credential
// through write (nil: it is treated as public anyway, as on the legacy route).
func keyOrPublic(write fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if write != nil && credential(c) != "" {
			return write(c)
		}
		if auth.From(c) == nil {
			auth.Set(c, &auth.Principal{Kind: auth.KindPublic, ClientIP: c.IP()})
		}
		return c.Next()
	}
}

// withTarget resolves, once per call, the container an event is for, and keeps it for the
// idempotency scope and the handler (targetOf).
func (s *server) withTarget(c *fiber.Ctx) error {
	t, err := s.resolveTarget(c)
	if err != nil {
		return err
	}
	c.Locals(targetKey, t)
	return c.Next()
}

// resolveTarget is the container of the path's container_id, of the key's workspace (the one
// taking the body's domain, else its first), or, for a public call, of the body's domain, whose
// browser Origin must be one of the container's hosts.
func (s *server) resolveTarget(c *fiber.Ctx) (events.Target, error) {
	ctx := c.UserContext()
	if ref := c.Params("container_id"); ref != "" {
		return s.Events.ContainerTarget(ctx, workspaceOf(c), ref)
	}
	if p := auth.From(c); p.Kind != auth.KindPublic {
		return s.Events.KeyTarget(ctx, workspaceOf(c), domainOf(c))
	}
	t, err := s.Events.PublicTarget(ctx, domainOf(c))
	if err != nil {
		return t, err
	}
	if origin := c.Get(fiber.HeaderOrigin); origin != "" {
		if !t.Container.AcceptsHost(events.HostOf(origin)) {
			return t, apperr.Forbidden(apperr.CodeAccessDenied, "This origin may not send events for this domain.")
		}
		allowOrigin(c, origin)
	}
	return t, nil
}

// targetOf is the container withTarget resolved.
func targetOf(c *fiber.Ctx) (events.Target, error) {
	t, ok := c.Locals(targetKey).(events.Target)
	if !ok {
		return t, errors.New("api: event route without withTarget")
	}
	return t, nil
}

// eventScope scopes public calls' idempotency keys to their container.
func eventScope(c *fiber.Ctx) (string, error) {
	if p := auth.From(c); p == nil || p.Kind == auth.KindPublic {
		t, err := targetOf(c)
		if err != nil {
			return "", err
		}
		return idempotency.ContainerScope(t.Container.ID), nil
	}
	return idempotency.DefaultScope(c)
}

// domainOf reads the body's domain member; a malformed body is left to the handler's decoding.
func domainOf(c *fiber.Ctx) string {
	var b struct {
		Domain string `json:"domain"`
	}
	_ = json.Unmarshal(c.Body(), &b) //nolint:errcheck // trackEvent reports a bad body
	return b.Domain
}

// trackEvent stores one event: 200 {success, event_id, lead_id, timestamp}.
func (s *server) trackEvent(c *fiber.Ctx) error {
	t, err := targetOf(c)
	if err != nil {
		return err
	}
	var in events.Input
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if r, ok := idempotency.RequestOf(c); ok && strings.TrimSpace(in.EventID) == "" {
		in.EventID = events.IdempotentEventID(r.Scope, r.Key)
	}
	meta := events.Meta{ClientIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent)}
	if rc := idempotency.ReceiptOf(c); rc != nil {
		meta.Receipt = rc // the answer is stored in the event's own transaction
	}
	r, err := s.Events.Track(c.UserContext(), t, in, meta, c.Body())
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// eventsPreflight answers a browser's CORS preflight: 204 allowing the origin when a live
// container takes events from its host, 403 otherwise.
func (s *server) eventsPreflight(c *fiber.Ctx) error {
	origin := c.Get(fiber.HeaderOrigin)
	_, err := s.Events.PublicTarget(c.UserContext(), origin)
	if _, refused := apperr.As(err); err != nil && !refused {
		return err // the store did not answer: 503, not a refusal the browser would remember
	}
	if err != nil || origin == "" {
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
