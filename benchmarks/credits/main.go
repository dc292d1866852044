// Command credits benchmarks how fast credits land in ClickHouse: it makes credit_outbox rows as
// the credit worker does (orders of buyers with 1 to 6 touches over the 30 days before, ads and
// other marketing touches; one in four a re-credit that takes back an older journey), turns each
// into its credits as the credit drainer does (facts.Credits: every model, both dates, both touch
// sets), and times facts.InsertCredits landing them in batches of the drainer's size, on a fresh
// database of its own (mtk_bench_credits on the server of MTK_CLICKHOUSE_URL). It prints the
// credit rows landed per second and the rows the credit tables then hold.
//
// With -cpuprofile it writes a CPU profile of the timed landing; it also prints what ClickHouse's
// query log says the inserts cost the server.
//
//	go run ./benchmarks/credits [-orders 4000] [-batch 1000] [-days 30] [-seed 1] [-cpuprofile FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/benchmarks/internal/benchenv"
	"mtk/benchmarks/internal/figures"
	"mtk/benchmarks/internal/profile"
	"mtk/facts"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/schema"
)

const (
	dbName  = "mtk_bench_credits"
	project = "prj_bench_credits"
	// ads is how many ads the touches are on: 20 an ad set's campaign, campaigns alternating
	// networks.
	ads = 400
)

func main() {
	orders := flag.Int("orders", 4000, "credit_outbox rows (orders credited, one in four again)")
	batch := flag.Int("batch", 1000, "credit_outbox rows a drain batch lands in one insert (ingest/credits' creditDrainBatch)")
	days := flag.Int("days", 30, "the days the orders spread over (a re-credit of all stored orders spans many months' partitions)")
	seed := flag.Uint64("seed", 1, "the journeys' random seed")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed landing to this file")
	flag.Parse()
	if err := run(*orders, *batch, *days, *seed, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(orders, batch, days int, seed uint64, cpuProfile string) error {
	ctx := context.Background()
	env := config.FromEnv()
	_, chURL, err := benchenv.FreshDatabases(ctx, env, dbName)
	if err != nil {
		return err
	}
	ch, err := db.OpenClickHouse(ctx, chURL)
	if err != nil {
		return err
	}
	defer ch.Close()
	if _, err := schema.MigrateClickHouse(ctx, ch); err != nil {
		return err
	}
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 41))
	from := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var batches [][]facts.CreditBatch
	var rows int
	for o := 0; o < orders; o += batch {
		var bs []facts.CreditBatch
		for id := o; id < min(orders, o+batch); id++ {
			for _, b := range outboxRow(r, from, days, loc, uint64(id+1)) {
				rows += len(b.Credits)
				bs = append(bs, b)
			}
		}
		batches = append(batches, bs)
	}
	stop, err := profile.Start(cpuProfile)
	if err != nil {
		return err
	}
	runID := fmt.Sprintf("bench_credits_%d", time.Now().UnixNano())
	start := time.Now()
	for i, bs := range batches {
		if err := facts.InsertCredits(logged(ctx, runID, i), ch, bs); err != nil {
			return err
		}
	}
	took := time.Since(start)
	stop()
	fmt.Printf("credits: %d credit_outbox rows, %d credit rows in %d inserts: %.2f s, %.0f credit rows/s\n",
		orders, rows, len(batches), took.Seconds(), float64(rows)/took.Seconds())
	if err := figures.Record(map[string]float64{"credits.rows_per_s": float64(rows) / took.Seconds()}); err != nil {
		return err
	}
	if err := printStored(ctx, ch); err != nil {
		return err
	}
	return serverSide(ctx, ch, runID, len(batches))
}

// outboxRow is credit_outbox row id as the drainer lands it: its new journey's credits, and for
// one in four its old journey's (the same order before its latest touch arrived) negated.
func outboxRow(r *rand.Rand, from time.Time, days int, loc *time.Location, id uint64) []facts.CreditBatch {
	j := journey(r, from, days)
	out := []facts.CreditBatch{{ProjectID: project, Zone: loc, OutboxID: id, Credits: facts.Credits(j)}}
	if len(j.Touches) > 1 && r.IntN(4) == 0 {
		old := j
		old.Touches = j.Touches[:len(j.Touches)-1]
		out = append(out, facts.CreditBatch{ProjectID: project, Zone: loc, OutboxID: id, Credits: facts.NegateCredits(facts.Credits(old))})
	}
	return out
}

// journey is a buyer's order in the days from from: 4 in 5 after 1 to 6 touches an hour to 30
// days before (log-uniform: most journeys are short), 2 in 3 of them on an ad, the rest e-mail,
// WhatsApp or organic search; the others come direct.
func journey(r *rand.Rand, from time.Time, days int) facts.OrderJourney {
	at := from.Add(time.Duration(r.Int64N(int64(days)*86400)) * time.Second)
	j := facts.OrderJourney{Time: at, Currency: "BRL",
		Values: facts.Values{facts.TxRevenue: int64(1000+r.IntN(50000)) * 10_000, facts.TxCount: 1, facts.TxCountTotal: 1}}
	if r.IntN(5) == 0 {
		return j
	}
	for range 1 + r.IntN(6) {
		age := time.Duration(math.Exp(r.Float64()*math.Log(30*24)) * float64(time.Hour))
		t := facts.Touch{Time: at.Add(-age).Truncate(time.Second), Dims: facts.TouchDims{Device: []string{"mobile", "desktop"}[r.IntN(2)],
			LandingPath: fmt.Sprintf("/p/%d", r.IntN(50))}}
		if r.IntN(3) > 0 {
			k := r.IntN(ads)
			camp := k / 20
			t.Entity = facts.AdEntity{Source: []string{"alpha_ads", "beta_ads"}[camp%2], ConnectionID: "con_1", AccountID: "act_1",
				CampaignID: fmt.Sprintf("c%d", camp), AdsetID: fmt.Sprintf("s%d", k/4), AdID: fmt.Sprintf("a%d", k)}
			t.Dims.UTMSource, t.Dims.UTMMedium, t.Dims.UTMCampaign = t.Entity.Source, "cpc", t.Entity.CampaignID
		} else {
			src := []string{"newsletter", "whatsapp", "google"}[r.IntN(3)]
			t.Dims.UTMSource, t.Dims.UTMMedium = src, map[string]string{"newsletter": "email", "whatsapp": "social", "google": "organic"}[src]
		}
		j.Touches = append(j.Touches, t)
	}
	return j
}

// printStored prints the rows each credit table holds.
func printStored(ctx context.Context, ch driver.Conn) error {
	for _, t := range facts.CreditsFamily.Tables {
		if t.Landing {
			continue
		}
		var n uint64
		if err := ch.QueryRow(ctx, "SELECT count() FROM "+t.Name).Scan(&n); err != nil {
			return err
		}
		fmt.Printf("  %s: %d rows\n", t.Name, n)
	}
	return nil
}
