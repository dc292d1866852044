package platform

import (
	"context"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
)

// ServerTrigger is a trigger fired on the server, with what a firing needs of its container:
// where its event is stored and which pixels its conversion goes to.
type ServerTrigger struct {
	Trigger
	ProjectID string
	// AlphaPixels are the ids of the first network's pixels linked to the container.
	AlphaPixels []string
}

// serverTriggerSelect reads the triggers of one type ($1) in live containers, oldest first, with
// their container's project and first-network pixels; the caller adds the scope's condition.
const serverTriggerSelect = `SELECT ` + triggerColumns + `, c.project_id,
	coalesce((SELECT array_agg(x.pixel_id ORDER BY x.created_at, x.pixel_id) FROM container_pixels x
		WHERE x.container_id = c.id AND x.source = '` + KindAlpha + `'), '{}')
	FROM triggers t` + triggerJoin + ` WHERE t.trigger_type = $1 AND c.status <> 'deleted' AND `

func scanServerTrigger(row pgx.CollectableRow) (ServerTrigger, error) {
	var s ServerTrigger
	err := row.Scan(append(s.columns(), &s.ProjectID, &s.AlphaPixels)...)
	return s, err
}

// ProjectServerTriggers lists the triggers of type typ in a project's live containers.
func (s *Containers) ProjectServerTriggers(ctx context.Context, projectID, typ string) ([]ServerTrigger, error) {
	return s.serverTriggers(ctx, projectScope, typ, projectID)
}

// QueueProjectServerTriggers queues ProjectServerTriggers' read on b, for a writer that sends it
// with its other reads: out is set when b's results are closed.
func QueueProjectServerTriggers(b *pgx.Batch, projectID, typ string, out *[]ServerTrigger) {
	b.Queue(serverTriggerSelect+projectScope+serverTriggerOrder, typ, projectID).Query(func(rows pgx.Rows) error {
		var err error
		*out, err = pgx.CollectRows(rows, scanServerTrigger)
		return err
	})
}

const (
	projectScope       = "c.project_id = $2"
	serverTriggerOrder = " ORDER BY t.created_at, t.id"
)

// WorkspaceServerTriggers lists the triggers of type typ in a workspace's live containers: tracking
// links and chat messages belong to a workspace, not to one of its projects.
func (s *Containers) WorkspaceServerTriggers(ctx context.Context, workspaceID, typ string) ([]ServerTrigger, error) {
	return s.serverTriggers(ctx, "c.workspace_id = $2", typ, workspaceID)
}

func (s *Containers) serverTriggers(ctx context.Context, scope, typ, id string) ([]ServerTrigger, error) {
	rows, err := s.pool.Query(ctx, serverTriggerSelect+scope+serverTriggerOrder, typ, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanServerTrigger)
}

// TriggerEvents is which events a container's triggers fire: each trigger's config.name, by
// trigger id, oldest first.
type TriggerEvents struct {
	ContainerID, ProjectID string
	TriggerIDs, EventNames []string
}

// TriggerEventsIn reads the triggers of a workspace's live container (by id, tracking code or v2
// domain) with the events they fire.
func (s *Containers) TriggerEventsIn(ctx context.Context, workspaceID, ref string) (TriggerEvents, error) {
	cond, arg := refCondition(ref)
	var te TriggerEvents
	err := s.pool.QueryRow(ctx, `SELECT c.id, c.project_id,
		coalesce((SELECT array_agg(t.id ORDER BY t.created_at, t.id) FROM triggers t WHERE t.container_id = c.id), '{}'),
		coalesce((SELECT array_agg(t.event_name ORDER BY t.created_at, t.id) FROM triggers t WHERE t.container_id = c.id), '{}')
		FROM containers c WHERE `+cond, workspaceID, arg).Scan(&te.ContainerID, &te.ProjectID, &te.TriggerIDs, &te.EventNames)
	if isNoRows(err) {
		return te, apperr.NotFound("Container not found.")
	}
	return te, err
}
