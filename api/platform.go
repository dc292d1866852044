package api

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

const scopeDataRead = auth.ScopeDataRead

type loginInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

type loginUser struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Role  string `json:"role"`
}

// login exchanges an e-mail and password for a JWT valid 7 days (limited per e-mail:
// checkPassword).
func (s *server) login(c *fiber.Ctx) error {
	var in loginInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	var missing []string
	if strings.TrimSpace(in.Email) == "" {
		missing = append(missing, "email: required")
	}
	if in.Password == "" {
		missing = append(missing, "password: required")
	}
	if len(missing) > 0 {
		return apperr.Missing("email and password are required.", missing...)
	}
	user, role, err := s.checkPassword(c, in.Email, in.Password)
	if err != nil {
		return err
	}
	token, err := auth.IssueJWT([]byte(s.Config.JWTSecret), user.ID, user.TokenGeneration, s.Clock.Now())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"token": token, "user": loginUser{ID: user.ID, Name: user.Name, Email: user.Email, Role: role}})
}

// listProjects lists the projects the caller may see.
func (s *server) listProjects(c *fiber.Ctx) error {
	wss, err := s.workspaceIDs(c)
	if err != nil {
		return err
	}
	projects, err := s.Projects.ListProjects(c.UserContext(), wss...)
	if err != nil {
		return err
	}
	if projects == nil {
		projects = []platform.Project{}
	}
	return c.JSON(projects)
}

// project resolves the path's project: 404 when unknown, 403 when the caller may not see it.
func (s *server) project(c *fiber.Ctx, id string) (platform.Project, error) {
	p, err := s.Projects.Project(c.UserContext(), id)
	if err != nil {
		return p, err
	}
	wss, err := s.workspaceIDs(c)
	if err != nil {
		return p, err
	}
	if !slices.Contains(wss, p.WorkspaceID) {
		return platform.Project{}, apperr.Forbidden(apperr.CodeAccessDenied, "You do not have access to this project.")
	}
	return p, nil
}

// listConnections lists a project's connections, with webhook URLs for custom ones when the
// caller may write data (mayWriteData); for other callers webhook_url is null.
func (s *server) listConnections(c *fiber.Ctx) error {
	p, err := s.project(c, c.Params("project_id"))
	if err != nil {
		return err
	}
	conns, err := s.Connections.ListConnections(c.UserContext(), p.ID)
	if err != nil {
		return err
	}
	showURLs, err := s.mayWriteData(c, p.WorkspaceID)
	if err != nil {
		return err
	}
	out := make([]platform.Connection, len(conns))
	for i, conn := range conns {
		out[i] = conn
		if showURLs {
			out[i] = conn.WithWebhookURL(s.Config.BaseURL)
		}
	}
	return c.JSON(out)
}

// mayWriteData reports whether the caller may write workspaceID's data: an API key with
// data:write, or a signed-in owner or admin. A webhook URL carries the key that writes orders,
// so only they are shown one; a data:read key (a third party's grant among them) or a member is not.
func (s *server) mayWriteData(c *fiber.Ctx, workspaceID string) (bool, error) {
	p := auth.From(c)
	if p.Kind == auth.KindJWT {
		return s.Users.Manages(c.UserContext(), p.UserID, workspaceID)
	}
	return p.Has(auth.ScopeDataWrite), nil
}

// connection resolves the path's connection among the caller's workspaces (by id, or by the
// first network's ad account id); another workspace's connection is not found.
func (s *server) connection(c *fiber.Ctx, ref string) (platform.Connection, error) {
	wss, err := s.workspaceIDs(c)
	if err != nil {
		return platform.Connection{}, err
	}
	return s.Connections.ConnectionIn(c.UserContext(), wss, ref)
}

// syncStatus reports a connection's sync history and schedule.
func (s *server) syncStatus(c *fiber.Ctx) error {
	conn, err := s.connection(c, c.Params("connection_id"))
	if err != nil {
		return err
	}
	st, err := s.Connections.SyncStatusOf(c.UserContext(), conn)
	if err != nil {
		return err
	}
	return c.JSON(st)
}
