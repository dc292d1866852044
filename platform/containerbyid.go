package platform

import (
	"context"

	"mtk/internal/apperr"
)

// ContainerByID returns a container of any workspace, deleted or not, as an operator sees it
// (`mtk container show`).
func (s *Containers) ContainerByID(ctx context.Context, id string) (Container, error) {
	c, err := s.containerWhere(ctx, "c.id = $1", id)
	if e, ok := apperr.As(err); ok && e.Code == apperr.CodeResourceNotFound {
		return c, apperr.NotFound("Container " + id + " not found.")
	}
	return c, err
}
