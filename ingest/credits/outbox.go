package credits

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/outbox"
)

// creditOutbox is the credit stream's outbox table.
const creditOutbox = "credit_outbox"

// ZonedJourney is an order's journey as credited in a project's zone.
type ZonedJourney struct {
	Zone    string
	Journey facts.OrderJourney
}

// Change is one order credited again: Old's credits are taken back and New's given (nil:
// none), in credit_outbox (schema/postgres/0020_credits.sql).
type Change struct {
	ProjectID string
	Old, New  *ZonedJourney
}

// QueueChanges queues cs in credit_outbox and the growth of the outbox's size, in the caller's
// transaction.
func QueueChanges(w *pgx.Batch, cs []Change, now time.Time) error {
	if len(cs) == 0 {
		return nil
	}
	for _, c := range cs {
		var at time.Time
		var zones [2]string
		var journeys [2][]byte
		for i, j := range []*ZonedJourney{c.Old, c.New} {
			if j == nil {
				continue
			}
			raw, err := json.Marshal(j.Journey)
			if err != nil {
				return fmt.Errorf("credits: credit journey: %w", err)
			}
			at, zones[i], journeys[i] = j.Journey.Time, j.Zone, raw
		}
		w.Queue(`INSERT INTO `+creditOutbox+` (project_id, ts, old_zone, old_journey, new_zone, new_journey, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, c.ProjectID, at, zones[0], journeys[0], zones[1], journeys[1], now)
	}
	outbox.QueueResize(w, creditOutbox, len(cs))
	return nil
}
