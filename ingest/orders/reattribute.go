package orders

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/factstream"
	"mtk/ingest/leads"
	"mtk/platform"
	"mtk/platform/utm"
)

// Reattribute attributes again, in the caller's transaction, the orders of people (each lead of
// them mapped to its person's root lead) that have no UTM of their own: the reported attribution
// of such an order is its person's latest UTM at or before the order's time (leads.QueueUTMAt),
// and a touch that arrives after the webhook but is dated before the order (server-side events,
// WhatsApp), or a merge of a lead holding one, changes it. An order whose UTM at its time now
// differs is changed as a webhook changes it: its stored facts and business rows negated and
// written again with the new attribution (factChange, bizChange), and its row updated, so that a
// repeated call changes nothing. The credit worker calls it for the people it credits again (the
// marks of their touches and merges), so that reported follows within seconds, like the credits.
//
// Its order rows are locked in key order; a webhook holding one of them waits for the lead lock
// at most, which no holder of order rows waits for.
func (s *Service) Reattribute(ctx context.Context, tx pgx.Tx, p platform.Project, people map[string]string) error {
	if len(people) == 0 {
		return nil
	}
	// Read before the rows are locked (cached a minute): a holder of order rows never waits for
	// a second pool connection.
	entities, err := s.resolver.Entities(ctx, p.ID)
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT connection_id, transaction_id, `+orderColumns+` FROM orders
		WHERE project_id = $1 AND lead_id = ANY($2) AND NOT utm_own
		ORDER BY connection_id, transaction_id FOR UPDATE`, p.ID, slices.Sorted(maps.Keys(people)))
	if err != nil {
		return fmt.Errorf("orders: read the people's orders: %w", err)
	}
	type lockedOrder struct {
		connectionID string
		stored
	}
	var locked []lockedOrder
	for rows.Next() {
		var o lockedOrder
		var id string
		if o.stored, _, err = scanOrder(rows, "", &o.connectionID, &id); err != nil {
			rows.Close()
			return fmt.Errorf("orders: read the people's orders: %w", err)
		}
		o.ID = id
		locked = append(locked, o)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("orders: read the people's orders: %w", err)
	}
	if len(locked) == 0 {
		return nil
	}
	at := make([]utm.Params, len(locked))
	reads := &pgx.Batch{}
	for i, o := range locked {
		// No touch carrying a UTM (touches stored before they kept it): the order keeps its own.
		leads.QueueUTMAt(reads, p.ID, people[o.leadID], o.created, o.UTM, &at[i])
	}
	if err := tx.SendBatch(ctx, reads).Close(); err != nil {
		return err
	}
	now := s.clock.Now()
	w := &pgx.Batch{}
	for i, prev := range locked {
		if at[i] == prev.UTM {
			continue
		}
		st := prev.stored
		st.UTM = at[i]
		st.attr, st.attributed = entities.Resolve(st.UTM)
		factstream.QueueFacts(w, factChange(p, prev.stored, true, st), now)
		factstream.QueueBiz(w, bizChange(p, prev.stored, true, st), now)
		attr := st.attr // zero when not attributed
		w.Queue(`UPDATE orders SET utm_source = $3, utm_medium = $4, utm_campaign = $5, utm_content = $6, utm_term = $7,
			attr_source = $8, attr_connection_id = $9, attr_account_id = $10, attr_campaign_id = $11, attr_adset_id = $12,
			attr_ad_id = $13 WHERE connection_id = $1 AND transaction_id = $2`, prev.connectionID, st.ID,
			st.UTM.Source, st.UTM.Medium, st.UTM.Campaign, st.UTM.Content, st.UTM.Term, attr.Source,
			attr.ConnectionID, attr.AccountID, attr.CampaignID, attr.AdsetID, attr.AdID)
	}
	if w.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, w).Close()
}
