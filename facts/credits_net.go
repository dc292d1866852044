package facts

// creditKey is everything of a credit row but its values: two deltas of one key land on the same
// row of every credit table, so their sum is what any reader sees.
type creditKey struct {
	model, touches string
	byClick        bool
	windowDays     uint8
	at             int64 // Unix nanoseconds: time.Time's == would compare locations too
	entity         AdEntity
	dims           TouchDims
	currency       string
}

// batchKey is what a batch's rows share: their project, zone (by name: the drainer loads a zone
// per journey) and credit_outbox row.
type batchKey struct {
	project, zone string
	outbox        uint64
}

// NetCredits are batches with the deltas of each credit_outbox row that fall on the same key
// summed into one, and the sums of zero left out. A re-credit lands its old journey negated
// beside its new one, and most of their rows cancel: the touches the new journey did not change
// keep their credits (a touch after the order changes none; in benchmarks/credits a fourth of all
// rows cancel). Rows are only summed within one credit_outbox row, so credits_raw.outbox_id, the
// credit drainer's exactly-once key, says of each row as before whether its attempt stored it; a
// row whose deltas all cancel stores nothing, and landing it again stores nothing again. The
// batches of one row come out as one, in the order they first appear, their keys in first order.
func NetCredits(batches []CreditBatch) []CreditBatch {
	out := make([]CreditBatch, 0, len(batches))
	groups := map[batchKey]int{} // index in out
	at := map[batchKey]map[creditKey]int{}
	for _, b := range batches {
		bk := batchKey{project: b.ProjectID, zone: b.Zone.String(), outbox: b.OutboxID}
		g, ok := groups[bk]
		if !ok {
			g = len(out)
			groups[bk] = g
			out = append(out, CreditBatch{ProjectID: b.ProjectID, Zone: b.Zone, OutboxID: b.OutboxID})
			at[bk] = map[creditKey]int{}
		}
		rows := at[bk]
		for _, c := range b.Credits {
			k := creditKey{model: c.Model, touches: c.Touches, byClick: c.ByClick, windowDays: c.WindowDays, at: c.Time.UnixNano(),
				entity: c.Entity, dims: c.Dims, currency: c.Currency}
			if i, ok := rows[k]; ok {
				out[g].Credits[i].Values = out[g].Credits[i].Values.Add(c.Values)
				continue
			}
			rows[k] = len(out[g].Credits)
			out[g].Credits = append(out[g].Credits, c)
		}
	}
	for g := range out {
		kept := out[g].Credits[:0]
		for _, c := range out[g].Credits {
			if !c.Values.IsZero() {
				kept = append(kept, c)
			}
		}
		out[g].Credits = kept
	}
	return out
}
