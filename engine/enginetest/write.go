package enginetest

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
	"mtk/facts"
)

// BatchSize is how many rows one insert carries.
const BatchSize = 100_000

// Write stores the dataset: entities, exchange rates and facts, in batches of BatchSize.
func (d *Dataset) Write(ctx context.Context, conn driver.Conn) error {
	if err := facts.InsertEntities(ctx, conn, d.Entities); err != nil {
		return err
	}
	if err := InsertRates(ctx, conn, d.Rates); err != nil {
		return err
	}
	// Facts go per project, since the stored local hour and day depend on its zone.
	for _, p := range d.Projects {
		var batch []facts.Fact
		for _, f := range d.Facts {
			if f.ProjectID != p.ID {
				continue
			}
			batch = append(batch, f)
			if len(batch) == BatchSize {
				if err := facts.InsertFacts(ctx, conn, p.Loc, batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		if len(batch) > 0 {
			if err := facts.InsertFacts(ctx, conn, p.Loc, batch); err != nil {
				return err
			}
		}
		for l, fs := range map[facts.Landing][]facts.Fact{facts.LandingHourly: d.HourFacts, facts.LandingDaily: d.DayFacts} {
			if err := facts.InsertBatch(ctx, conn, l, p.Loc, "generated", projectFacts(fs, p.ID)); err != nil {
				return err
			}
		}
	}
	return nil
}

func projectFacts(fs []facts.Fact, projectID string) []facts.Fact {
	var out []facts.Fact
	for _, f := range fs {
		if f.ProjectID == projectID {
			out = append(out, f)
		}
	}
	return out
}

// InsertRates writes daily exchange rates into fx_rates (version 1), moving no data version:
// generated data is written before answers are served.
func InsertRates(ctx context.Context, conn driver.Conn, rates []Rate) error {
	return facts.InsertRates(ctx, conn, FactsRates(rates), 1)
}

// FactsRates are rates as facts.InsertRates takes them.
func FactsRates(rates []Rate) []facts.Rate {
	out := make([]facts.Rate, len(rates))
	for i, r := range rates {
		out[i] = facts.Rate{Day: r.Day, Base: r.Base, Quote: r.Quote, Rate: r.Rate}
	}
	return out
}

// StreamAdFacts writes n ad-fact rows for the dataset's first project, spread over its days
// and ads, without keeping them in memory; it is how benchmarks fill ClickHouse. The data
// depends only on seed, n and the dataset.
func (d *Dataset) StreamAdFacts(ctx context.Context, conn driver.Conn, seed int64, n int) error {
	if len(d.Projects) == 0 {
		return fmt.Errorf("enginetest: no project")
	}
	p := d.Projects[0]
	var ads []ad
	for _, f := range d.Facts {
		if f.ProjectID == p.ID && f.AdID != "" && f.Values[facts.Impressions] >= 0 && f.Values[facts.TxCountTotal] == 0 {
			ads = append(ads, ad{source: f.Source, connection: f.ConnectionID, account: f.AccountID,
				campaign: f.CampaignID, adset: f.AdsetID, id: f.AdID, currency: f.Currency})
		}
		if len(ads) >= 500 {
			break
		}
	}
	if len(ads) == 0 {
		return fmt.Errorf("enginetest: project %s has no ads", p.ID)
	}
	r := rand.New(rand.NewSource(seed))
	start := engine.DayStart(p.Start, p.Loc)
	span := engine.DayStart(p.Start.AddDate(0, 0, p.Days), p.Loc).Sub(start)
	batch := make([]facts.Fact, 0, BatchSize)
	for i := 0; i < n; i++ {
		// Rows advance through the range in order, as a sync writes them.
		at := start.Add(time.Duration(int64(span) / int64(n) * int64(i))).Truncate(time.Minute)
		batch = append(batch, adFact(r, p, ads[r.Intn(len(ads))], at))
		if len(batch) == BatchSize || i == n-1 {
			if err := facts.InsertFacts(ctx, conn, p.Loc, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return nil
}
