package api

import (
	"github.com/gofiber/fiber/v2"

	"mtk/internal/auth"
	"mtk/platform"
)

// trackingRoutes registers the tracking configuration routes under /v3/tracking (containers,
// triggers, tracking links, message decoding) and the public link redirect at /l/<slug>. They
// take API keys, and JWTs with X-Workspace-Id; every write route takes an Idempotency-Key. The
// redirect counts against the public per-IP limit, since each visit writes a click.
func (s *server) trackingRoutes(app *fiber.App, v3 fiber.Router, public fiber.Handler) {
	idem := s.idempotent(nil)
	read := require(auth.ScopeTrackingRead, workspaceRequired)
	write := require(auth.ScopeTrackingWrite, workspaceRequired)
	const container = "/tracking/containers/:container_id"
	v3.Get("/tracking/containers", read, s.listContainers)
	v3.Get(container, read, s.getContainer)
	v3.Get(container+"/triggers", read, s.listTriggers)
	v3.Get(container+"/trigger-stats", read, s.triggerStats)
	v3.Post(container+"/triggers", write, idem, s.createTrigger)
	v3.Put(container+"/triggers/:trigger_id", write, idem, s.updateTrigger)
	v3.Delete(container+"/triggers/:trigger_id", write, idem, s.deleteTrigger)
	v3.Post("/tracking/links", write, idem, s.createLink)
	v3.Post("/tracking/messages/decode", read, idem, s.decodeMessages)
	app.Get(platform.LinkPath+":slug", public, s.followLink)
}

// workspaceOf is the caller's workspace on a route that requires one.
func workspaceOf(c *fiber.Ctx) string { return auth.From(c).WorkspaceID }

// getContainer answers a container by its id, v3 tracking code or v2 domain.
func (s *server) getContainer(c *fiber.Ctx) error {
	ctr, err := s.Containers.ContainerIn(c.UserContext(), workspaceOf(c), c.Params("container_id"))
	if err != nil {
		return err
	}
	return c.JSON(ctr)
}

// queryParam returns a query parameter's value, or nil when the request does not carry it.
func queryParam(c *fiber.Ctx, name string) *string {
	args := c.Context().QueryArgs()
	if !args.Has(name) {
		return nil
	}
	v := string(args.Peek(name))
	return &v
}

// listTriggers answers a page of a container's triggers (?page=&limit=&type=).
func (s *server) listTriggers(c *fiber.Ctx) error {
	q, err := platform.NewTriggerQuery(queryParam(c, "page"), queryParam(c, "limit"), queryParam(c, "type"))
	if err != nil {
		return err
	}
	page, err := s.Containers.ListTriggers(c.UserContext(), workspaceOf(c), c.Params("container_id"), q)
	if err != nil {
		return err
	}
	return c.JSON(page)
}

// triggerAccess is which trigger types the caller may change: every type for a workspace's owner
// or admin signed in (a JWT: the dashboard), api triggers for anyone else (API keys, as the spec
// says, and members).
func (s *server) triggerAccess(c *fiber.Ctx) (platform.TriggerAccess, error) {
	p := auth.From(c)
	if p.Kind != auth.KindJWT {
		return platform.APITriggers, nil
	}
	manages, err := s.Users.Manages(c.UserContext(), p.UserID, p.WorkspaceID)
	if err != nil || !manages {
		return platform.APITriggers, err
	}
	return platform.AllTriggers, nil
}

// createTrigger makes a trigger of a type the caller may make (triggerAccess): 201 with it.
func (s *server) createTrigger(c *fiber.Ctx) error {
	var in platform.TriggerInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	access, err := s.triggerAccess(c)
	if err != nil {
		return err
	}
	t, err := s.Containers.CreateTriggerAs(c.UserContext(), access, workspaceOf(c), c.Params("container_id"), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(t)
}

// updateTrigger replaces a trigger the caller may change (triggerAccess): 200 with it.
func (s *server) updateTrigger(c *fiber.Ctx) error {
	var in platform.TriggerInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	access, err := s.triggerAccess(c)
	if err != nil {
		return err
	}
	t, err := s.Containers.UpdateTriggerAs(c.UserContext(), access, workspaceOf(c), c.Params("container_id"), c.Params("trigger_id"), in)
	if err != nil {
		return err
	}
	return c.JSON(t)
}

// deleteTrigger deletes a trigger the caller may change (triggerAccess): 200 {success: true, id}.
func (s *server) deleteTrigger(c *fiber.Ctx) error {
	id := c.Params("trigger_id")
	access, err := s.triggerAccess(c)
	if err != nil {
		return err
	}
	if err := s.Containers.DeleteTriggerAs(c.UserContext(), access, workspaceOf(c), c.Params("container_id"), id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "id": id})
}
