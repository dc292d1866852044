package events

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/journeys"
	"mtk/ingest/leads"
	"mtk/platform"
)

// maxClickID bounds click_id: click ids are below 2^53 (platform/links.go).
const maxClickID = 1<<53 - 1

// linkClick is the tracking-link click an event carries (Input.ClickID): when it happened, the ad
// entity its UTM resolves to in the event's project (zero for none), its traffic dimensions and
// whether it is a marketing touch (journeys.ClickTouch).
type linkClick struct {
	id    int64
	at    time.Time
	attr  facts.AdEntity
	dims  facts.TouchDims
	touch bool
}

// clickOf reads the click an event carries among the clicks of its workspace's links; nil when it
// carries none or one mtk does not know there, which the event then ignores (as decode answers such
// a message untracked). A click's time and UTM never change, so they are read before the batch.
func (s *Service) clickOf(ctx context.Context, t Target, id *int64) (*linkClick, error) {
	if id == nil {
		return nil, nil
	}
	k, ok, err := platform.ClickIn(ctx, s.pool, t.Project.WorkspaceID, *id)
	if err != nil || !ok {
		return nil, err
	}
	c := &linkClick{id: *id, at: k.At}
	if c.attr, _, err = s.resolver.Resolve(ctx, t.Project.ID, k.UTM); err != nil {
		return nil, err
	}
	c.dims, c.touch = journeys.ClickTouch(k)
	return c, nil
}

// openClicks are the clicks of a batch's events that had no lead when the batch locked them: the
// batch's transaction holds their rows, so a click gets its lead, and its touch, once.
type openClicks struct {
	ids  []int64
	open map[int64]bool
}

// queueOpenClicks queues, in the batch's first round trip, the lock of the events' clicks that
// have no lead yet (in id order, so that concurrent batches lock them in one order).
func queueOpenClicks(b *pgx.Batch, evs []*event) *openClicks {
	oc := &openClicks{open: map[int64]bool{}}
	for _, ev := range evs {
		if ev.click != nil {
			oc.ids = append(oc.ids, ev.click.id)
		}
	}
	if len(oc.ids) > 0 {
		platform.QueueLockOpenClicks(b, oc.ids)
	}
	return oc
}

func (oc *openClicks) read(br pgx.BatchResults) error {
	if len(oc.ids) == 0 {
		return nil
	}
	rows, err := br.Query()
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	for _, id := range ids {
		oc.open[id] = true
	}
	return err
}

// claim queues, for each open click that a stored event of a lead carries (the first such event),
// the click's lead, and returns the journey touches of those clicks that are marketing touches: at
// the click's time, named by the click id.
func (oc *openClicks) claim(w *pgx.Batch, evs []*event, found []leads.Result) []journeys.JourneyRow {
	var ids []int64
	var leadIDs []string
	var out []journeys.JourneyRow
	for i, ev := range evs {
		c := ev.click
		if c == nil || !oc.open[c.id] || found[i].LeadID == "" {
			continue
		}
		delete(oc.open, c.id)
		ids, leadIDs = append(ids, c.id), append(leadIDs, found[i].LeadID)
		if !c.touch {
			continue
		}
		p := ev.target.Project
		out = append(out, journeys.TouchRow(p.ID, p.Timezone, journeys.OriginLinkClick, strconv.FormatInt(c.id, 10),
			found[i].LeadID, c.at, c.attr, c.dims))
	}
	if len(ids) > 0 {
		platform.QueueClickLeads(w, ids, leadIDs)
	}
	return out
}
