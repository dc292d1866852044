package platform

import (
	"context"

	"mtk/internal/apperr"
)

// TagPath is where a container's script is served: {base URL}/t/<tracking code or id>.js.
const TagPath = "/t/"

// TagURL is the address of c's script: by its v3 tracking code, else its id, at mtk's public
// address baseURL (MTK_BASE_URL).
func TagURL(baseURL string, c Container) string {
	ref := c.ID
	if c.TrackingCode != nil {
		ref = *c.TrackingCode
	}
	return baseURL + TagPath + ref + ".js"
}

// InstallLine is the one line of HTML that installs c's tag on a site.
func InstallLine(baseURL string, c Container) string {
	return `<script async src="` + TagURL(baseURL, c) + `"></script>`
}

// ContainerByID returns a container of any workspace, deleted or not, as an operator sees it.
func (s *Containers) ContainerByID(ctx context.Context, id string) (Container, error) {
	c, err := s.containerWhere(ctx, "c.id = $1", id)
	if e, ok := apperr.As(err); ok && e.Code == apperr.CodeResourceNotFound {
		return c, apperr.NotFound("Container " + id + " not found.")
	}
	return c, err
}
