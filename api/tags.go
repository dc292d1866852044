package api

import (
	"slices"

	"github.com/gofiber/fiber/v2"

	"mtk/platform"
	"mtk/tag"
)

// listedContainer is a container as GET /v3/tracking/containers lists it: with the line of HTML
// that installs its tag on a site.
type listedContainer struct {
	Container   platform.Container `json:"container"`
	InstallLine string             `json:"install_line"`
}

// listContainers answers the workspace's live containers, v3 first, then oldest first; with
// ?project_id= only that project's: 200 {data: [...]}. The dashboard's Tags view starts here.
func (s *server) listContainers(c *fiber.Ctx) error {
	all, err := s.Containers.WorkspaceContainers(c.UserContext(), workspaceOf(c))
	if err != nil {
		return err
	}
	if p := queryParam(c, "project_id"); p != nil {
		all = slices.DeleteFunc(all, func(ctr platform.Container) bool { return ctr.ProjectID != *p })
	}
	out := make([]listedContainer, len(all))
	for i, ctr := range all {
		out[i] = listedContainer{Container: ctr, InstallLine: tag.InstallLine(s.Config.BaseURL, tag.Ref(ctr))}
	}
	return c.JSON(fiber.Map{"data": out})
}

// triggerStats answers each of a container's triggers' last firing and 24-hour count, read
// from the events table: 200 {data: [{trigger_id, last_fired_at, count_24h}]}, oldest trigger first.
func (s *server) triggerStats(c *fiber.Ctx) error {
	te, err := s.Containers.TriggerEventsIn(c.UserContext(), workspaceOf(c), c.Params("container_id"))
	if err != nil {
		return err
	}
	stats, err := s.Stats(c.UserContext(), te, s.Clock.Now())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": stats})
}
