package facts

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// netSums sums batches' values per credit_outbox row and key, leaving out sums of zero: what
// every credit table holds once summed, whatever the rows.
func netSums(batches []CreditBatch) map[batchKey]map[creditKey]Values {
	out := map[batchKey]map[creditKey]Values{}
	for _, b := range batches {
		bk := batchKey{project: b.ProjectID, zone: b.Zone.String(), outbox: b.OutboxID}
		for _, c := range b.Credits {
			if out[bk] == nil {
				out[bk] = map[creditKey]Values{}
			}
			k := creditKey{model: c.Model, touches: c.Touches, byClick: c.ByClick, windowDays: c.WindowDays, at: c.Time.UnixNano(),
				entity: c.Entity, dims: c.Dims, currency: c.Currency}
			if v := out[bk][k].Add(c.Values); v.IsZero() {
				delete(out[bk], k)
			} else {
				out[bk][k] = v
			}
		}
		if len(out[bk]) == 0 {
			delete(out, bk)
		}
	}
	return out
}

// TestNetCredits re-credits orders as the credit drainer lands them (the old journey negated
// beside the new one, each from a zone loaded on its own) and checks that netting keeps every
// sum per credit_outbox row and key, writes each key once per credit_outbox row,
// leaves its input as it was, and lands nothing for a re-credit that changed no credit.
func TestNetCredits(t *testing.T) {
	zone := func() *time.Location {
		loc, err := time.LoadLocation("America/Sao_Paulo")
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	sold := OrderJourney{Time: creditOrderTime, Currency: "BRL", Values: Values{TxRevenue: 9_000_000, TxCount: 1, TxCountTotal: 1},
		Touches: []Touch{{Time: creditOrderTime.Add(-20 * 24 * time.Hour), Entity: ad("a")}, {Time: creditOrderTime.Add(-3 * 24 * time.Hour),
			Dims: TouchDims{UTMSource: "newsletter"}}, {Time: creditOrderTime.Add(-2 * time.Hour), Entity: ad("b")}}}
	newTouch := sold // a touch 5 days before the order arrives late
	newTouch.Touches = append(slices.Clone(sold.Touches), Touch{Time: creditOrderTime.Add(-5 * 24 * time.Hour), Entity: ad("c")})
	after := sold // a touch after the order changes no credit
	after.Touches = append(slices.Clone(sold.Touches), Touch{Time: creditOrderTime.Add(time.Hour), Entity: ad("d")})
	refunded := sold
	refunded.Values = Values{TxCountTotal: 1, TxCountRefunded: 1}
	recredit := func(id uint64, old, cur OrderJourney) []CreditBatch {
		return []CreditBatch{{ProjectID: "prj", Zone: zone(), OutboxID: id, Credits: NegateCredits(Credits(old))},
			{ProjectID: "prj", Zone: zone(), OutboxID: id, Credits: Credits(cur)}}
	}
	in := []CreditBatch{{ProjectID: "prj", Zone: zone(), OutboxID: 1, Credits: Credits(sold)}}
	in = append(in, recredit(2, sold, newTouch)...)
	in = append(in, recredit(3, sold, after)...)
	in = append(in, recredit(4, sold, refunded)...)
	in = append(in, CreditBatch{ProjectID: "prj", Zone: zone(), OutboxID: 5, Credits: NegateCredits(Credits(sold))})
	before := slices.Clone(in[1].Credits)

	got := NetCredits(in)
	if !slices.Equal(in[1].Credits, before) {
		t.Fatal("NetCredits changed its input")
	}
	if want := netSums(in); !maps.EqualFunc(netSums(got), want, maps.Equal) {
		t.Fatal("netted sums differ from the batches'")
	}
	rows := map[uint64]int{}
	byRow := map[uint64][]CreditBatch{}
	for _, b := range got {
		rows[b.OutboxID] += len(b.Credits)
		byRow[b.OutboxID] = append(byRow[b.OutboxID], b)
	}
	for id, bs := range byRow {
		if rows[id] != len(netSums(bs)[batchKey{"prj", bs[0].Zone.String(), id}]) {
			t.Fatalf("credit_outbox row %d: a key written twice or a zero row kept", id)
		}
	}
	recredited := len(Credits(sold)) + len(Credits(newTouch))
	if rows[1] != len(Credits(sold)) || rows[5] != len(Credits(sold)) || rows[2] == 0 || rows[2] >= recredited {
		t.Fatalf("rows per credit_outbox row %v: want all of 1 and 5, fewer than %d of 2", rows, recredited)
	}
	if rows[3] != 0 || rows[4] != len(Credits(refunded)) {
		t.Fatalf("rows per credit_outbox row %v: want none of 3 (nothing changed), %d of 4 (the refund: each key once)", rows,
			len(Credits(refunded)))
	}
}
