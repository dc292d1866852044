package platform

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
	"mtk/internal/ids"
)

// The container versions: v2 containers are legacy and addressed by domain, v3 containers by
// their tracking code.
const (
	ContainerV2 = "2.0"
	ContainerV3 = "3.0"
)

// TrackingCodePrefix starts every v3 tracking code: MTK-7F3K9Q.
const TrackingCodePrefix = "MTK"

// trackingCodeAlphabet is Crockford's base 32 (no I, L, O, U), in upper case.
const trackingCodeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

var trackingCode = regexp.MustCompile(`^` + TrackingCodePrefix + `-[` + trackingCodeAlphabet + `]{6}$`)

// DefaultLeadKey is the first-party cookie in which the tracking script keeps a visitor's lead id.
const DefaultLeadKey = "_mtk_lead"

// maxAllowedHosts bounds metadata.allowed_hosts.
const maxAllowedHosts = 50

// Containers keeps the containers (tracked sites) with their domains, pixels, triggers and status.
type Containers struct {
	db
	projects *Projects
}

// Container is a tracked site: the tag, its triggers and the pixels it feeds.
type Container struct {
	ID              string            `json:"id"`
	Domain          string            `json:"domain"`
	Alias           string            `json:"alias"`
	Version         string            `json:"version"`
	TrackingCode    *string           `json:"tracking_code"`
	Status          string            `json:"status"`
	VerifiedDomains []VerifiedDomain  `json:"verified_domains"`
	LinkedPixels    []LinkedPixel     `json:"linked_pixels"`
	Triggers        []TriggerSummary  `json:"triggers"`
	Metadata        ContainerMetadata `json:"metadata"`
	WorkspaceID     string            `json:"workspace_id"`
	ProjectID       string            `json:"project_id"`
	LastEventAt     *time.Time        `json:"last_event_at"`
	CreatedAt       time.Time         `json:"created_at"`
}

// VerifiedDomain is a domain of a container and whether its ownership is proven.
type VerifiedDomain struct {
	Domain string `json:"domain"`
	Status string `json:"status"` // DomainPending or DomainVerified
}

// The statuses of a container's domain.
const (
	DomainPending  = "pending"
	DomainVerified = "verified"
)

// LinkedPixel is a pixel of an ad network that a container's conversions are sent to.
type LinkedPixel struct {
	Source string `json:"source"`
	ID     string `json:"id"`
	Name   string `json:"name"`
}

// TriggerSummary is a trigger as the container lists it.
type TriggerSummary struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	TriggerType    string `json:"trigger_type"`
	AlphaEventName string `json:"alpha_event_name"`
}

// ContainerMetadata is the container's tag configuration.
type ContainerMetadata struct {
	AllowedHosts   []string `json:"allowed_hosts"`
	LeadKey        string   `json:"lead_key"`
	HasFunnelSteps bool     `json:"has_funnel_steps"`
	// RequireConsent makes the container's script send nothing and write no cookie before the
	// page calls mtk.push(['consent', 'granted']).
	RequireConsent bool `json:"require_consent"`
}

// ContainerInput is what creating a container takes.
type ContainerInput struct {
	ProjectID string
	Domain    string
	// Version is 2 or 3 (or 2.0, 3.0); empty means 3.
	Version string
	// Alias is the display name; empty means the domain.
	Alias string
	// AllowedHosts are the hosts the tag accepts events from (a host, or *.host for its
	// subdomains); empty means the domain alone.
	AllowedHosts   []string
	HasFunnelSteps bool
	// RequireConsent: see ContainerMetadata.
	RequireConsent bool
}

// normalize validates in, naming every problem, and returns it with defaults applied.
func (in ContainerInput) normalize() (ContainerInput, error) {
	var p problems
	if strings.TrimSpace(in.ProjectID) == "" {
		p.missing("project_id")
	}
	in.Domain = NormalizeDomain(in.Domain)
	switch {
	case in.Domain == "":
		p.missing("domain")
	case !validHost(in.Domain):
		p.bad("domain", "%q is not a domain name such as shop.example.com", in.Domain)
	}
	switch in.Version {
	case "", "3", ContainerV3:
		in.Version = ContainerV3
	case "2", ContainerV2:
		in.Version = ContainerV2
	default:
		p.bad("version", "%q is not 2 or 3", in.Version)
	}
	if in.Alias = strings.TrimSpace(in.Alias); in.Alias == "" {
		in.Alias = in.Domain
	}
	if utf8.RuneCountInString(in.Alias) > 100 || strings.ContainsRune(in.Alias, 0) {
		p.bad("alias", "at most 100 characters, without NUL characters")
	}
	hosts := make([]string, 0, len(in.AllowedHosts))
	for i, h := range in.AllowedHosts {
		h = NormalizeDomain(h)
		if !validHost(strings.TrimPrefix(h, "*.")) {
			p.bad("allowed_hosts", "[%d] %q is not a host name such as shop.example.com or *.shop.example.com", i, h)
		}
		hosts = append(hosts, h)
	}
	if len(hosts) > maxAllowedHosts {
		p.bad("allowed_hosts", "at most %d hosts", maxAllowedHosts)
	}
	if len(hosts) == 0 && in.Domain != "" {
		hosts = []string{in.Domain}
	}
	in.AllowedHosts = slices.Compact(slices.Sorted(slices.Values(hosts)))
	return in, p.err("Invalid container.")
}

// codeAttempts bounds the retries of CreateContainer when a new tracking code is taken.
const codeAttempts = 5

// newTrackingCode returns a random tracking code: the prefix, a dash and 6 characters (30 bits).
func newTrackingCode() string {
	return TrackingCodePrefix + "-" + strings.ToUpper(ids.Random(4)[:6])
}

// CreateContainer makes a container in a project, with its domain pending verification and
// status pending. A v3 container gets a tracking code.
func (s *Containers) CreateContainer(ctx context.Context, in ContainerInput) (Container, error) {
	in, err := in.normalize()
	if err != nil {
		return Container{}, err
	}
	p, err := s.projects.Project(ctx, in.ProjectID)
	if err != nil {
		return Container{}, err
	}
	id := ids.New(ids.Container)
	for range codeAttempts {
		var code *string
		if in.Version == ContainerV3 {
			c := newTrackingCode()
			code = &c
		}
		if err = s.insertContainer(ctx, id, p, in, code); violated(err) != "containers_tracking_code_key" {
			break
		}
	}
	if violated(err) == "containers_live_domain" {
		return Container{}, apperr.Invalid("Invalid container.",
			"domain: "+in.Domain+" already has a live v"+in.Version[:1]+" container")
	}
	if err != nil {
		return Container{}, err
	}
	return s.containerWhere(ctx, "c.id = $1", id)
}

func (s *Containers) insertContainer(ctx context.Context, id string, p Project, in ContainerInput, code *string) error {
	now := s.clock.Now()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO containers (id, workspace_id, project_id, domain, alias, version,
			tracking_code, status, allowed_hosts, lead_key, has_funnel_steps, created_at, require_consent)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			id, p.WorkspaceID, p.ID, in.Domain, in.Alias, in.Version, code, ContainerPending,
			in.AllowedHosts, DefaultLeadKey, in.HasFunnelSteps, now, in.RequireConsent); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO container_domains (container_id, domain, status, created_at)
			VALUES ($1, $2, $3, $4)`, id, in.Domain, DomainPending, now)
		return err
	})
}

// containerSelect reads a container with its domains, pixels and triggers in one statement.
const containerSelect = `SELECT c.id, c.domain, c.alias, c.version, c.tracking_code, c.status,
	c.allowed_hosts, c.lead_key, c.has_funnel_steps, c.require_consent, c.workspace_id, c.project_id, c.last_event_at, c.created_at,
	coalesce((SELECT json_agg(json_build_object('domain', d.domain, 'status', d.status) ORDER BY d.created_at, d.domain)
		FROM container_domains d WHERE d.container_id = c.id), '[]'),
	coalesce((SELECT json_agg(json_build_object('source', x.source, 'id', x.pixel_id, 'name', x.name) ORDER BY x.created_at, x.source, x.pixel_id)
		FROM container_pixels x WHERE x.container_id = c.id), '[]'),
	coalesce((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'trigger_type', t.trigger_type,
		'alpha_event_name', t.alpha_name) ORDER BY t.created_at, t.id)
		FROM triggers t WHERE t.container_id = c.id), '[]')
	FROM containers c`

func scanContainer(row pgx.CollectableRow) (Container, error) {
	var c Container
	err := row.Scan(&c.ID, &c.Domain, &c.Alias, &c.Version, &c.TrackingCode, &c.Status,
		&c.Metadata.AllowedHosts, &c.Metadata.LeadKey, &c.Metadata.HasFunnelSteps, &c.Metadata.RequireConsent, &c.WorkspaceID, &c.ProjectID,
		&c.LastEventAt, &c.CreatedAt, &c.VerifiedDomains, &c.LinkedPixels, &c.Triggers)
	return c, err
}

// containerWhere returns the one container matching where (whose parameters are args).
func (s *Containers) containerWhere(ctx context.Context, where string, args ...any) (Container, error) {
	return queryOne(ctx, s.db, scanContainer, apperr.NotFound("Container not found."), containerSelect+" WHERE "+where, args...)
}

// refCondition is the SQL condition, over containers c with the workspace as $1 and ref as $2,
// that finds a live container of the workspace by ref (see refMatch). It returns ref normalized
// for $2.
func refCondition(ref string) (string, string) {
	cond, arg := refMatch(ref, "$2")
	return "c.workspace_id = $1 AND " + cond, arg
}

// refMatch is the SQL condition, over containers c with ref as the parameter param, that finds a
// live container by ref: its id (ctr_...), the tracking code of a v3 container (MTK-XXXXXX, in
// any case) or the domain of a v2 container. It returns ref normalized for param.
func refMatch(ref, param string) (string, string) {
	const live = "c.status <> 'deleted' AND "
	switch {
	case strings.HasPrefix(ref, ids.Container+"_"):
		return live + "c.id = " + param, ref
	case trackingCode.MatchString(strings.ToUpper(ref)):
		return live + "c.version = '3.0' AND c.tracking_code = " + param, strings.ToUpper(ref)
	default:
		return live + "c.version = '2.0' AND c.domain = " + param, NormalizeDomain(ref)
	}
}

// ContainerIn returns a live container of a workspace by its id, a v3 tracking code or a v2
// domain. Another workspace's container, and a deleted one, is not found.
func (s *Containers) ContainerIn(ctx context.Context, workspaceID, ref string) (Container, error) {
	cond, arg := refCondition(ref)
	return s.containerWhere(ctx, cond, workspaceID, arg)
}

// ListContainers lists a project's live containers, oldest first.
func (s *Containers) ListContainers(ctx context.Context, projectID string) ([]Container, error) {
	rows, err := s.pool.Query(ctx, containerSelect+` WHERE c.project_id = $1 AND c.status <> 'deleted'
		ORDER BY c.created_at, c.id`, projectID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanContainer)
}

// QueueProjectPixels queues the read of the ids of the pixels of network source linked to the
// project's live containers, once each, by container (oldest first) then pixel (as ListContainers
// lists them), for a writer that sends it with its other reads: out is set when b's results are
// closed.
func QueueProjectPixels(b *pgx.Batch, projectID, source string, out *[]string) {
	b.Queue(`SELECT x.pixel_id FROM containers c JOIN container_pixels x ON x.container_id = c.id
		WHERE c.project_id = $1 AND c.status <> 'deleted' AND x.source = $2
		ORDER BY c.created_at, c.id, x.created_at, x.pixel_id`, projectID, source).Query(func(rows pgx.Rows) error {
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		seen := map[string]bool{}
		*out = (*out)[:0]
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				*out = append(*out, id)
			}
		}
		return err
	})
}

// LinkPixel links an ad network's pixel to a container; linking it again renames it.
func (s *Containers) LinkPixel(ctx context.Context, containerID string, px LinkedPixel) error {
	var p problems
	px.Source = p.text("source", px.Source, 50)
	px.ID = p.text("id", px.ID, 100)
	px.Name = p.text("name", px.Name, 255)
	if err := p.err("Invalid pixel."); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO container_pixels (container_id, source, pixel_id, name, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (container_id, source, pixel_id) DO UPDATE SET name = excluded.name`,
		containerID, px.Source, px.ID, px.Name, s.clock.Now())
	if isForeignKeyViolation(err) {
		return apperr.NotFound("Container not found.")
	}
	return err
}

// SetRequireConsent sets whether a live container's script waits for the visitor's consent.
func (s *Containers) SetRequireConsent(ctx context.Context, containerID string, require bool) error {
	tag, err := s.pool.Exec(ctx, "UPDATE containers SET require_consent = $2 WHERE id = $1 AND status <> 'deleted'", containerID, require)
	if err == nil && tag.RowsAffected() == 0 {
		return apperr.NotFound("Container not found.")
	}
	return err
}
