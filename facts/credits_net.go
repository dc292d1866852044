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
// keep their credits (a touch after the order changes none; in benchmarks/credits a fifth of all
// rows cancel). Rows are only summed within one credit_outbox row, so credits_raw.outbox_id, the
// credit drainer's exactly-once key, says of each row as before whether its attempt stored it; a
// row whose deltas all cancel stores nothing, and landing it again stores nothing again. Each
// batch comes out at its place, holding the keys it was first to bring; batches is left as it was.
func NetCredits(batches []CreditBatch) []CreditBatch {
	n := 0
	for _, b := range batches {
		n += len(b.Credits)
	}
	// One array for every row, never grown: rows are summed in place by index, and the
	// batches' slices of it stay valid.
	rows := make([]Credit, 0, n)
	at := make(map[netKey]int, n)
	out := make([]CreditBatch, len(batches))
	for i, b := range batches {
		bk := batchKey{project: b.ProjectID, zone: b.Zone.String(), outbox: b.OutboxID}
		first := len(rows)
		for _, c := range b.Credits {
			k := netKey{bk, keyOf(&c)}
			if j, ok := at[k]; ok {
				rows[j].Values = rows[j].Values.Add(c.Values)
				continue
			}
			at[k] = len(rows)
			rows = append(rows, c)
		}
		out[i] = CreditBatch{ProjectID: b.ProjectID, Zone: b.Zone, OutboxID: b.OutboxID, Credits: rows[first:len(rows):len(rows)]}
	}
	for i := range out {
		kept := out[i].Credits[:0]
		for _, c := range out[i].Credits {
			if !c.Values.IsZero() {
				kept = append(kept, c)
			}
		}
		out[i].Credits = kept
	}
	return out
}

// keyOf is c's key.
func keyOf(c *Credit) creditKey {
	return creditKey{model: c.Model, touches: c.Touches, byClick: c.ByClick, windowDays: c.WindowDays, at: c.Time.UnixNano(),
		entity: c.Entity, dims: c.Dims, currency: c.Currency}
}

// netKey is a row's key in NetCredits: its credit_outbox row's and its own.
type netKey struct {
	batch  batchKey
	credit creditKey
}
