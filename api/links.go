package api

import (
	"github.com/gofiber/fiber/v2"

	"mtk/platform"
	"mtk/platform/utm"
)

// createLink makes a tracking link of the caller's workspace: 201 {id, slug, url}.
func (s *server) createLink(c *fiber.Ctx) error {
	var in platform.LinkInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	link, err := s.Links.CreateLink(c.UserContext(), workspaceOf(c), s.Config.BaseURL, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(link)
}

// followLink records a click of a tracking link, with the firing of the workspace's
// click_tracking_link triggers, and sends the visitor to the chat (302). The
// click's UTM is the link's own overlaid, member by member, with the visited URL's utm_*
// parameters (an ad's dynamic ones).
func (s *server) followLink(c *fiber.Ctx) error {
	to, err := s.Links.FollowLink(c.UserContext(), c.Params("slug"), platform.Click{
		UTM:       utm.Extract(utm.Params{}, c.OriginalURL(), nil),
		IP:        c.IP(),
		UserAgent: c.Get(fiber.HeaderUserAgent),
	}, s.Fires.Click)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Redirect(to, fiber.StatusFound)
}
