package platform

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
	"mtk/internal/ids"
)

// TriggerAPI is the one trigger type that the public API creates, updates and deletes: a trigger
// fired programmatically through POST /v3/tracking/events.
const TriggerAPI = "api"

// TriggerTypes are the trigger types of the spec. Types other than api are made in the platform
// interface (here: AddPlatformTrigger).
var TriggerTypes = []string{
	TriggerAPI, TriggerPageView, TriggerPageViewDuration, TriggerElementClick, TriggerElementView,
	TriggerElementHover, TriggerFormSubmit, TriggerScrollDepth, TriggerVideoViewTime, TriggerWhatsAppKeyword,
	TriggerTrackingLink, TriggerCheckoutApproved,
}

// ValidTriggerType reports whether t is one of TriggerTypes.
func ValidTriggerType(t string) bool { return slices.Contains(TriggerTypes, t) }

// StandardEvents are the first network's standard events that config.alpha.name accepts when
// config.alpha.track_custom is false.
var StandardEvents = []string{
	"Purchase", "Lead", "PageView", "AddToCart", "InitiateCheckout", "CompleteRegistration", "Contact",
	"ViewContent", "Search", "AddPaymentInfo", "AddToWishlist", "Subscribe", "StartTrial", "Schedule",
	"SubmitApplication", "CustomizeProduct", "Donate", "FindLocation",
}

// Length limits of a trigger's names. A custom event name follows the first network's limit.
const (
	maxTriggerName = 255
	maxEventName   = 100
	maxCustomEvent = 50
)

// Trigger fires a conversion: its type says when, config.name is the internal event name and
// config.alpha the event sent to the first network.
type Trigger struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Domain      string        `json:"domain"`
	Config      TriggerConfig `json:"config"`
	ContainerID string        `json:"container_id"`
	CreatedAt   time.Time     `json:"created_at"`
	UpdatedAt   time.Time     `json:"updated_at"`
}

// TriggerConfig is a trigger's configuration.
type TriggerConfig struct {
	Trigger TriggerRule `json:"trigger"`
	Name    string      `json:"name"`
	Alpha   AlphaEvent  `json:"alpha"`
}

// AlphaEvent is the event sent to the first network: a standard one, or any name as a custom event.
type AlphaEvent struct {
	Name        string `json:"name"`
	TrackCustom bool   `json:"track_custom"`
}

// TriggerInput is the body of a trigger create or update (an update replaces every member).
type TriggerInput struct {
	Name   string        `json:"name"`
	Config TriggerConfig `json:"config"`
}

// normalize validates in and returns it trimmed. apiOnly refuses every type but api, as the public
// API does.
func (in TriggerInput) normalize(apiOnly bool) (TriggerInput, error) {
	var p problems
	in.Name = p.text("name", in.Name, maxTriggerName)
	typ := strings.TrimSpace(in.Config.Trigger.Type)
	in.Config.Trigger.Type = typ
	switch {
	case typ == "":
		p.missing("config.trigger.type")
	case !ValidTriggerType(typ):
		p.bad("config.trigger.type", "%q is not a trigger type (%s)", typ, strings.Join(TriggerTypes, ", "))
	case apiOnly && typ != TriggerAPI:
		p.bad("config.trigger.type", "only api triggers can be created or updated with an API key; %s triggers are made by a workspace owner or admin (the dashboard)", typ)
	default:
		in.Config.Trigger = normalizeRule(in.Config.Trigger, &p)
	}
	in.Config.Name = p.text("config.name", in.Config.Name, maxEventName)
	in.Config.Alpha.Name = strings.TrimSpace(in.Config.Alpha.Name)
	alpha := in.Config.Alpha
	switch {
	case alpha.Name == "":
		p.missing("config.alpha.name")
	case alpha.TrackCustom && (utf8.RuneCountInString(alpha.Name) > maxCustomEvent || strings.ContainsRune(alpha.Name, 0)):
		p.bad("config.alpha.name", "a custom event name has at most %d characters, without NUL characters", maxCustomEvent)
	case !alpha.TrackCustom && !slices.Contains(StandardEvents, alpha.Name):
		p.bad("config.alpha.name", "%q is not a standard event%s; set config.alpha.track_custom to send a custom event",
			alpha.Name, suggestion(alpha.Name))
	}
	return in, p.err("Invalid trigger.")
}

// suggestion names the standard event that name spells in another case, if any.
func suggestion(name string) string {
	for _, e := range StandardEvents {
		if strings.EqualFold(e, name) {
			return fmt.Sprintf(" (did you mean %q?)", e)
		}
	}
	return " (" + strings.Join(StandardEvents, ", ") + ")"
}

// triggerColumns and triggerJoin read triggers t (a table or a data-modifying WITH) with their
// container's domain.
const (
	triggerColumns = `t.id, t.name, c.domain, t.rule, t.trigger_type, t.event_name, t.alpha_name, t.alpha_track_custom,
	t.container_id, t.created_at, t.updated_at`
	triggerJoin = " JOIN containers c ON c.id = t.container_id"
)

func scanTrigger(row pgx.CollectableRow) (Trigger, error) {
	var t Trigger
	err := row.Scan(t.columns()...)
	return t, err
}

// columns are where triggerColumns are scanned to, in their order.
func (t *Trigger) columns() []any {
	// The rule is stored without its type (see storedRule); trigger_type, read after it, sets it.
	return []any{&t.ID, &t.Name, &t.Domain, &t.Config.Trigger, &t.Config.Trigger.Type, &t.Config.Name, &t.Config.Alpha.Name,
		&t.Config.Alpha.TrackCustom, &t.ContainerID, &t.CreatedAt, &t.UpdatedAt}
}

// containerID resolves a container reference of a workspace (see ContainerIn) to its id.
func (s *Containers) containerID(ctx context.Context, workspaceID, ref string) (string, error) {
	cond, arg := refCondition(ref)
	var id string
	err := s.pool.QueryRow(ctx, "SELECT c.id FROM containers c WHERE "+cond, workspaceID, arg).Scan(&id)
	if isNoRows(err) {
		return "", apperr.NotFound("Container not found.")
	}
	return id, err
}

// TriggerAccess is which trigger types a caller may create, replace and delete.
type TriggerAccess int

// The two kinds of caller of the trigger routes (the contract's "Who configures").
const (
	// APITriggers is an API key's access: api triggers only, as the spec says.
	APITriggers TriggerAccess = iota
	// AllTriggers is a workspace owner's or admin's (the platform interface, the dashboard).
	AllTriggers
)

// CreateTrigger makes an api trigger in a workspace's container, as the public API does.
func (s *Containers) CreateTrigger(ctx context.Context, workspaceID, containerRef string, in TriggerInput) (Trigger, error) {
	return s.CreateTriggerAs(ctx, APITriggers, workspaceID, containerRef, in)
}

// CreateTriggerAs makes a trigger in a workspace's container, of a type that access allows.
func (s *Containers) CreateTriggerAs(ctx context.Context, access TriggerAccess, workspaceID, containerRef string, in TriggerInput) (Trigger, error) {
	id, err := s.containerID(ctx, workspaceID, containerRef)
	if err != nil {
		return Trigger{}, err
	}
	if in, err = in.normalize(access == APITriggers); err != nil {
		return Trigger{}, err
	}
	return s.insertTrigger(ctx, id, in)
}

// AddPlatformTrigger makes a trigger of any type in a container, as the platform interface does.
func (s *Containers) AddPlatformTrigger(ctx context.Context, containerID string, in TriggerInput) (Trigger, error) {
	in, err := in.normalize(false)
	if err != nil {
		return Trigger{}, err
	}
	return s.insertTrigger(ctx, containerID, in)
}

// storedRule is the rule as the rule column keeps it: without its type, which trigger_type holds.
func storedRule(r TriggerRule) TriggerRule {
	r.Type = ""
	return r
}

func (s *Containers) insertTrigger(ctx context.Context, containerID string, in TriggerInput) (Trigger, error) {
	now := s.clock.Now()
	rows, err := s.pool.Query(ctx, `WITH t AS (INSERT INTO triggers (id, container_id, name, trigger_type, event_name,
		alpha_name, alpha_track_custom, created_at, updated_at, rule) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9) RETURNING *)
		SELECT `+triggerColumns+" FROM t"+triggerJoin,
		ids.New(ids.Trigger), containerID, in.Name, in.Config.Trigger.Type, in.Config.Name,
		in.Config.Alpha.Name, in.Config.Alpha.TrackCustom, now, storedRule(in.Config.Trigger))
	if err != nil {
		return Trigger{}, err
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanTrigger)
	if isForeignKeyViolation(err) {
		return t, apperr.NotFound("Container not found.")
	}
	return t, err
}

// triggerNotFound is the spec's answer for an unknown trigger.
func triggerNotFound() error { return apperr.NotFound("Trigger not found") }

// editableTrigger checks that triggerID is a trigger of the container that access may change.
func (s *Containers) editableTrigger(ctx context.Context, access TriggerAccess, containerID, triggerID, verb string) error {
	var typ string
	err := s.pool.QueryRow(ctx, "SELECT trigger_type FROM triggers WHERE id = $1 AND container_id = $2", triggerID, containerID).Scan(&typ)
	if isNoRows(err) {
		return triggerNotFound()
	}
	if err != nil {
		return err
	}
	if access == APITriggers && typ != TriggerAPI {
		return apperr.Invalid(fmt.Sprintf("Only api triggers can be %s with an API key.", verb),
			fmt.Sprintf("trigger_id: %s is a %s trigger; a workspace owner or admin changes it (the dashboard)", triggerID, typ))
	}
	return nil
}

// UpdateTrigger replaces an api trigger of a workspace's container.
func (s *Containers) UpdateTrigger(ctx context.Context, workspaceID, containerRef, triggerID string, in TriggerInput) (Trigger, error) {
	return s.UpdateTriggerAs(ctx, APITriggers, workspaceID, containerRef, triggerID, in)
}

// UpdateTriggerAs replaces a trigger of a workspace's container, of types that access allows
// (the type itself may change).
func (s *Containers) UpdateTriggerAs(ctx context.Context, access TriggerAccess, workspaceID, containerRef, triggerID string, in TriggerInput) (Trigger, error) {
	cid, err := s.containerID(ctx, workspaceID, containerRef)
	if err != nil {
		return Trigger{}, err
	}
	if err := s.editableTrigger(ctx, access, cid, triggerID, "updated"); err != nil {
		return Trigger{}, err
	}
	if in, err = in.normalize(access == APITriggers); err != nil {
		return Trigger{}, err
	}
	return queryOne(ctx, s.db, scanTrigger, triggerNotFound(), `WITH t AS (UPDATE triggers SET name = $3, event_name = $4, alpha_name = $5,
		alpha_track_custom = $6, updated_at = $7, trigger_type = $8, rule = $9 WHERE id = $1 AND container_id = $2 RETURNING *)
		SELECT `+triggerColumns+" FROM t"+triggerJoin,
		triggerID, cid, in.Name, in.Config.Name, in.Config.Alpha.Name, in.Config.Alpha.TrackCustom, s.clock.Now(),
		in.Config.Trigger.Type, storedRule(in.Config.Trigger))
}

// DeleteTrigger deletes an api trigger of a workspace's container.
func (s *Containers) DeleteTrigger(ctx context.Context, workspaceID, containerRef, triggerID string) error {
	return s.DeleteTriggerAs(ctx, APITriggers, workspaceID, containerRef, triggerID)
}

// DeleteTriggerAs deletes a trigger of a workspace's container, of types that access allows.
func (s *Containers) DeleteTriggerAs(ctx context.Context, access TriggerAccess, workspaceID, containerRef, triggerID string) error {
	cid, err := s.containerID(ctx, workspaceID, containerRef)
	if err != nil {
		return err
	}
	if err := s.editableTrigger(ctx, access, cid, triggerID, "deleted"); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, "DELETE FROM triggers WHERE id = $1 AND container_id = $2", triggerID, cid)
	if err == nil && tag.RowsAffected() == 0 {
		return triggerNotFound()
	}
	return err
}
