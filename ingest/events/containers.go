package events

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/ttlcache"
	"mtk/platform"
)

// Target is the container an event is for, with its project.
type Target struct {
	Container platform.Container
	Project   platform.Project
	Location  *time.Location
}

// cacheTTL is how long a resolved container is reused: a container changed or deleted meanwhile
// is seen at most this much later.
const cacheTTL = 30 * time.Second

// resolved is a container resolution as cached: a refusal (unknown container, domain no
// container takes) is kept like a target; a store failure is not kept.
type resolved struct {
	t   Target
	err error
}

// targets caches container resolution, by how it was asked.
type targets struct {
	projects *platform.Projects
	cache    *ttlcache.Cache[string, resolved]
}

func newTargets(projects *platform.Projects) targets {
	return targets{projects: projects, cache: ttlcache.New[string, resolved](cacheTTL, 10_000)}
}

func (c *targets) get(ctx context.Context, key string, now time.Time, load func() (Target, error)) (Target, error) {
	r, err := c.cache.Load(key, now, func() (resolved, error) {
		t, err := load()
		if _, known := apperr.As(err); err != nil && !known {
			return resolved{}, err
		}
		return resolved{t: t, err: err}, nil
	})
	if err != nil {
		return Target{}, err
	}
	return r.t, r.err
}

func (c *targets) target(ctx context.Context, ctr platform.Container) (Target, error) {
	p, err := c.projects.Project(ctx, ctr.ProjectID)
	if err != nil {
		return Target{}, err
	}
	loc, err := time.LoadLocation(p.Timezone)
	if err != nil {
		return Target{}, fmt.Errorf("project %s: time zone: %w", p.ID, err)
	}
	return Target{Container: ctr, Project: p, Location: loc}, nil
}

// HostOf reads the host of a domain member or an Origin header: a bare host, or a URL.
func HostOf(v string) string {
	v = strings.TrimSpace(v)
	if strings.Contains(v, "://") {
		if u, err := url.Parse(v); err == nil {
			return platform.NormalizeDomain(u.Hostname())
		}
		return ""
	}
	host, _, _ := strings.Cut(v, "/")
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	return platform.NormalizeDomain(host)
}

// PublicTarget resolves a public call's container from its domain member: the live container
// whose domain or allowed hosts take that host, a v3 one before a v2 one. A missing domain is
// 400; a domain that no container takes is 403 access_denied.
func (s *Service) PublicTarget(ctx context.Context, domain string) (Target, error) {
	host := HostOf(domain)
	if host == "" {
		return Target{}, apperr.Missing("domain is required without a credential.", "domain: required in public mode")
	}
	return s.targets.get(ctx, "host:"+host, s.clock.Now(), func() (Target, error) {
		ctr, err := s.containers.ContainerForHost(ctx, host)
		if e, ok := apperr.As(err); ok && e.Code == apperr.CodeResourceNotFound {
			return Target{}, apperr.Forbidden(apperr.CodeAccessDenied,
				fmt.Sprintf("No tracking container accepts events for the domain %s.", host))
		}
		if err != nil {
			return Target{}, err
		}
		return s.targets.target(ctx, ctr)
	})
}

// KeyTarget resolves an authenticated call's container from its workspace: the one that takes
// the body's domain when it is sent and matches, else the workspace's first live container (v3
// before v2, then the oldest).
func (s *Service) KeyTarget(ctx context.Context, workspaceID, domain string) (Target, error) {
	host := HostOf(domain)
	return s.targets.get(ctx, "ws:"+workspaceID+"|"+host, s.clock.Now(), func() (Target, error) {
		all, err := s.containers.WorkspaceContainers(ctx, workspaceID)
		if err != nil {
			return Target{}, err
		}
		if len(all) == 0 {
			return Target{}, apperr.Invalid("This workspace has no tracking container; create one first.")
		}
		for _, c := range all {
			if c.AcceptsHost(host) {
				return s.targets.target(ctx, c)
			}
		}
		return s.targets.target(ctx, all[0])
	})
}

// ContainerTarget resolves a container of the workspace by id, v3 tracking code or v2 domain.
func (s *Service) ContainerTarget(ctx context.Context, workspaceID, ref string) (Target, error) {
	return s.targets.get(ctx, "ref:"+workspaceID+"|"+ref, s.clock.Now(), func() (Target, error) {
		ctr, err := s.containers.ContainerIn(ctx, workspaceID, ref)
		if err != nil {
			return Target{}, err
		}
		return s.targets.target(ctx, ctr)
	})
}
