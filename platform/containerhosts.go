package platform

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
)

// hostCondition matches a live container c that accepts events from host $1: its domain, or one
// of its allowed hosts (a host, or *.example.com for the subdomains of example.com).
const hostCondition = `c.status <> 'deleted' AND (c.domain = $1 OR $1 = ANY (c.allowed_hosts) OR EXISTS (
	SELECT 1 FROM unnest(c.allowed_hosts) h WHERE h LIKE '*.%' AND right($1, length(h) - 1) = substr(h, 2)))`

// ContainerForHost returns the live container that accepts events from host (a domain, matched
// without case), preferring a v3 container to a v2 one, then the oldest. None is not found.
func (s *Containers) ContainerForHost(ctx context.Context, host string) (Container, error) {
	return queryOne(ctx, s.db, scanContainer, apperr.NotFound("Container not found."),
		containerSelect+" WHERE "+hostCondition+" ORDER BY c.version DESC, c.created_at, c.id LIMIT 1", NormalizeDomain(host))
}

// WorkspaceContainers lists a workspace's live containers: v3 first, then oldest first.
func (s *Containers) WorkspaceContainers(ctx context.Context, workspaceID string) ([]Container, error) {
	rows, err := s.pool.Query(ctx, containerSelect+` WHERE c.workspace_id = $1 AND c.status <> 'deleted'
		ORDER BY c.version DESC, c.created_at, c.id`, workspaceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanContainer)
}

// AcceptsHost reports whether the container takes events from host: its domain or an allowed
// host (*.example.com covers the subdomains of example.com).
func (c Container) AcceptsHost(host string) bool {
	host = NormalizeDomain(host)
	if host == "" {
		return false
	}
	if host == c.Domain {
		return true
	}
	for _, h := range c.Metadata.AllowedHosts {
		if h == host || strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:]) {
			return true
		}
	}
	return false
}

// LiveContainer returns a live container of any workspace by its id, a v3 tracking code or a v2
// domain (the public script's path names it so). A deleted one is not found.
func (s *Containers) LiveContainer(ctx context.Context, ref string) (Container, error) {
	cond, arg := refMatch(ref, "$1")
	return s.containerWhere(ctx, cond, arg)
}

// ProjectSites are the hosts of every container of a project, deleted ones included, by id: the
// domain and allowed hosts that AcceptsHost reads (the journeys backfill tells internal navigation
// from another site's referrer with them, for events stored long ago).
func ProjectSites(ctx context.Context, q Querier, projectID string) (map[string]Container, error) {
	rows, err := q.Query(ctx, "SELECT id, domain, allowed_hosts FROM containers WHERE project_id = $1", projectID)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Container, error) {
		var c Container
		return c, r.Scan(&c.ID, &c.Domain, &c.Metadata.AllowedHosts)
	})
	out := make(map[string]Container, len(got))
	for _, c := range got {
		out[c.ID] = c
	}
	return out, err
}
