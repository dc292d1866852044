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
	TriggerAPI, "page_view", "page_view_duration", "element_click", "element_view", "element_hover",
	"form_submit", "scroll_depth", "video_view_duration", "whatsapp_keyword_message",
	"click_tracking_link", "checkout_transaction_approved",
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

// TriggerRule says when a trigger fires.
type TriggerRule struct {
	Type string `json:"type"`
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
	switch {
	case typ == "":
		p.missing("config.trigger.type")
	case !ValidTriggerType(typ):
		p.bad("config.trigger.type", "%q is not a trigger type (%s)", typ, strings.Join(TriggerTypes, ", "))
	case apiOnly && typ != TriggerAPI:
		p.bad("config.trigger.type", "only api triggers can be created or updated over the API; %s triggers are made in the platform", typ)
	}
	in.Config.Trigger.Type = typ
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
	triggerColumns = `t.id, t.name, c.domain, t.trigger_type, t.event_name, t.alpha_name, t.alpha_track_custom,
	t.container_id, t.created_at, t.updated_at`
	triggerJoin = " JOIN containers c ON c.id = t.container_id"
)

func scanTrigger(row pgx.CollectableRow) (Trigger, error) {
	var t Trigger
	err := row.Scan(&t.ID, &t.Name, &t.Domain, &t.Config.Trigger.Type, &t.Config.Name, &t.Config.Alpha.Name,
		&t.Config.Alpha.TrackCustom, &t.ContainerID, &t.CreatedAt, &t.UpdatedAt)
	return t, err
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

// CreateTrigger makes an api trigger in a workspace's container, as the public API does.
func (s *Containers) CreateTrigger(ctx context.Context, workspaceID, containerRef string, in TriggerInput) (Trigger, error) {
	id, err := s.containerID(ctx, workspaceID, containerRef)
	if err != nil {
		return Trigger{}, err
	}
	if in, err = in.normalize(true); err != nil {
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

func (s *Containers) insertTrigger(ctx context.Context, containerID string, in TriggerInput) (Trigger, error) {
	now := s.clock.Now()
	rows, err := s.pool.Query(ctx, `WITH t AS (INSERT INTO triggers (id, container_id, name, trigger_type, event_name,
		alpha_name, alpha_track_custom, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *)
		SELECT `+triggerColumns+" FROM t"+triggerJoin,
		ids.New(ids.Trigger), containerID, in.Name, in.Config.Trigger.Type, in.Config.Name,
		in.Config.Alpha.Name, in.Config.Alpha.TrackCustom, now)
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

// apiTrigger checks that triggerID is a trigger of the container and of type api.
func (s *Containers) apiTrigger(ctx context.Context, containerID, triggerID, verb string) error {
	var typ string
	err := s.pool.QueryRow(ctx, "SELECT trigger_type FROM triggers WHERE id = $1 AND container_id = $2", triggerID, containerID).Scan(&typ)
	if isNoRows(err) {
		return triggerNotFound()
	}
	if err != nil {
		return err
	}
	if typ != TriggerAPI {
		return apperr.Invalid(fmt.Sprintf("Only api triggers can be %s over the API.", verb),
			fmt.Sprintf("trigger_id: %s is a %s trigger; change it in the platform", triggerID, typ))
	}
	return nil
}

// UpdateTrigger replaces an api trigger of a workspace's container.
func (s *Containers) UpdateTrigger(ctx context.Context, workspaceID, containerRef, triggerID string, in TriggerInput) (Trigger, error) {
	cid, err := s.containerID(ctx, workspaceID, containerRef)
	if err != nil {
		return Trigger{}, err
	}
	if err := s.apiTrigger(ctx, cid, triggerID, "updated"); err != nil {
		return Trigger{}, err
	}
	if in, err = in.normalize(true); err != nil {
		return Trigger{}, err
	}
	return queryOne(ctx, s.db, scanTrigger, triggerNotFound(), `WITH t AS (UPDATE triggers SET name = $3, event_name = $4, alpha_name = $5,
		alpha_track_custom = $6, updated_at = $7 WHERE id = $1 AND container_id = $2 RETURNING *)
		SELECT `+triggerColumns+" FROM t"+triggerJoin,
		triggerID, cid, in.Name, in.Config.Name, in.Config.Alpha.Name, in.Config.Alpha.TrackCustom, s.clock.Now())
}

// DeleteTrigger deletes an api trigger of a workspace's container.
func (s *Containers) DeleteTrigger(ctx context.Context, workspaceID, containerRef, triggerID string) error {
	cid, err := s.containerID(ctx, workspaceID, containerRef)
	if err != nil {
		return err
	}
	if err := s.apiTrigger(ctx, cid, triggerID, "deleted"); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, "DELETE FROM triggers WHERE id = $1 AND container_id = $2", triggerID, cid)
	if err == nil && tag.RowsAffected() == 0 {
		return triggerNotFound()
	}
	return err
}
