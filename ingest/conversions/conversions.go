package conversions

import (
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
)

// Conversion is one event for one pixel.
type Conversion struct {
	ProjectID string
	PixelID   string
	Input     capi.Input
}

// Queue queues c on w, once per (pixel, event name, event id): a repeat changes
// nothing. An input the API would refuse (invalid, or older than MaxAge) is queued dead with the
// reason.
func Queue(w *pgx.Batch, c Conversion, now time.Time) error {
	ev, err := capi.NewEvent(c.Input)
	status, reason := StatusPending, ""
	switch {
	case err != nil:
		status, reason = StatusDead, err.Error()
		ev = capi.Event{EventName: c.Input.EventName, EventTime: c.Input.EventTime.Unix(), EventID: c.Input.EventID}
	case c.Input.EventTime.Before(now.Add(-MaxAge)):
		status, reason = StatusDead, tooOld
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	w.Queue(`INSERT INTO conversion_outbox (project_id, pixel_id, event_name, event_id, event_time, payload, status,
		next_attempt_at, last_error, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8)
		ON CONFLICT (pixel_id, event_name, event_id) DO NOTHING`,
		c.ProjectID, c.PixelID, ev.EventName, ev.EventID, c.Input.EventTime, payload, status, now, reason)
	return nil
}

// The statuses of a conversion.
const (
	StatusPending = "pending"
	StatusSent    = "sent"
	StatusDead    = "dead"
)
