package facts

import (
	"testing"
	"time"
)

// BenchmarkCreditRows times the Go side of InsertCredits: a drain batch's credits made into
// credits_raw's columns. It reports credits per second: go test ./facts -run XXX -bench CreditRows
func BenchmarkCreditRows(b *testing.B) {
	loc, _ := time.LoadLocation("America/Sao_Paulo")
	var batch []CreditBatch
	n := 0
	for i := range 1000 {
		cs := Credits(benchJourney(i, 1+i%6))
		n += len(cs)
		batch = append(batch, CreditBatch{ProjectID: "prj", Zone: loc, OutboxID: uint64(i + 1), Credits: cs})
	}
	for b.Loop() {
		creditRows(batch)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "credits/s")
}

// BenchmarkNetCredits times NetCredits on a drain batch whose rows re-credit their orders (the old
// journey, without its latest touch, negated beside the new one): go test ./facts -run XXX -bench NetCredits
func BenchmarkNetCredits(b *testing.B) {
	loc, _ := time.LoadLocation("America/Sao_Paulo")
	var batch []CreditBatch
	n := 0
	for i := range 1000 {
		o := benchJourney(i, 2+i%5)
		old := o
		old.Touches = o.Touches[:len(o.Touches)-1]
		news, olds := Credits(o), NegateCredits(Credits(old))
		n += len(news) + len(olds)
		batch = append(batch, CreditBatch{ProjectID: "prj", Zone: loc, OutboxID: uint64(i + 1), Credits: olds},
			CreditBatch{ProjectID: "prj", Zone: loc, OutboxID: uint64(i + 1), Credits: news})
	}
	for b.Loop() {
		NetCredits(batch)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "credits/s")
}

// benchJourney is the benchmarks' i-th order of a drain batch, with touches touches over the 30
// days before it: e-mail visits and, two in three, clicks on one of 20 ads.
func benchJourney(i, touches int) OrderJourney {
	o := OrderJourney{Time: creditOrderTime.Add(time.Duration(i) * time.Minute), Currency: "BRL", Values: Values{TxRevenue: 1e9, TxCount: 1, TxCountTotal: 1}}
	for k := range touches {
		t := Touch{Time: o.Time.Add(-time.Duration(1+(i*7+k*13)%(30*24)) * time.Hour), Dims: TouchDims{UTMSource: "newsletter", Device: "mobile"}}
		if k%3 > 0 {
			t.Entity, t.Dims = ad(string(rune('a'+(i+k)%20))), TouchDims{UTMSource: "alpha_ads", UTMMedium: "cpc"}
		}
		o.Touches = append(o.Touches, t)
	}
	return o
}
