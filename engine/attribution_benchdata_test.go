package engine_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine/enginetest"
	"mtk/facts"
)

// benchJourneys describes the attribution benchmark's data: orders of buyers over days days from
// from, in zone loc, touched by ads of both networks (ads ads under ads/20 campaigns).
type benchJourneys struct {
	project string
	loc     *time.Location
	from    time.Time
	days    int
	ads     int
}

// benchAd is ad k's entity: 4 ads an ad set, 20 a campaign, campaigns alternating networks.
func benchAd(k int) facts.AdEntity {
	camp := k / 20
	return facts.AdEntity{Source: []string{"alpha_ads", "beta_ads"}[camp%2], ConnectionID: "con_1", AccountID: "act_1",
		CampaignID: fmt.Sprintf("c%d", camp), AdsetID: fmt.Sprintf("s%d", k/4), AdID: fmt.Sprintf("a%d", k)}
}

// benchAdDims are ad k's touch's traffic dimensions, as its network's UTM carries them.
func benchAdDims(k int) facts.TouchDims {
	e := benchAd(k)
	return facts.TouchDims{UTMSource: e.Source[:strings.Index(e.Source, "_")], UTMMedium: "cpc", UTMCampaign: e.CampaignID,
		LandingPath: "/ad", Device: []string{"mobile", "desktop", "tablet"}[k%3]}
}

// benchChannels are the marketing touches that are no ad: e-mail, WhatsApp, organic search.
var benchChannels = []facts.TouchDims{
	{UTMSource: "email", UTMMedium: "crm", LandingPath: "/", Device: "desktop"},
	{UTMSource: "whatsapp", UTMMedium: "chat", LandingPath: "/promo", Device: "mobile"},
	{ReferrerHost: "www.google.com", LandingPath: "/", Device: "mobile"},
}

// buyer is the journey of one buyer: one order, or two (a returning customer, 1 in 5); 4 in 5
// come after 1 to 6 touches an hour to 30 days before (log-uniform: most journeys are short),
// each on any ad; the rest come direct. Besides, 0 to 2 touches of other channels (drawn from
// rc, so that the ad touches are the same with or without them). Its orders are also reported
// facts on the ad of its latest ad touch (the UTM ingestion links an order to, its own or its
// lead's; a buyer never touched by an ad is in no reported total), and business facts by the
// traffic dimensions of its latest touch.
func (bj benchJourneys) buyer(r, rc *rand.Rand, id int, orders int) (rows []enginetest.JourneyRow, reported []facts.Fact, biz []enginetest.BusinessRow) {
	lead := fmt.Sprintf("B%d", id)
	at := bj.from.Add(time.Duration(r.Int64N(int64(bj.days)*86400)) * time.Second)
	var last *facts.AdEntity
	var lastDims facts.TouchDims
	for o := range orders {
		if o > 0 {
			at = at.Add(time.Duration(1+r.IntN(20*86400)) * time.Second)
		}
		youngest := time.Duration(math.MaxInt64)
		if r.IntN(5) > 0 {
			for range 1 + r.IntN(6) {
				age := time.Duration(math.Exp(r.Float64()*math.Log(30*24)) * float64(time.Hour))
				k := r.IntN(bj.ads)
				e := benchAd(k)
				rows = append(rows, enginetest.JourneyRow{Kind: enginetest.KindTouch, Time: at.Add(-age), Lead: lead, Entity: e, Dims: benchAdDims(k)})
				if age < youngest {
					youngest, last, lastDims = age, &e, benchAdDims(k)
				}
			}
		}
		for range rc.IntN(3) {
			age := time.Duration(math.Exp(rc.Float64()*math.Log(30*24)) * float64(time.Hour))
			d := benchChannels[rc.IntN(len(benchChannels))]
			rows = append(rows, enginetest.JourneyRow{Kind: enginetest.KindTouch, Time: at.Add(-age), Lead: lead, Dims: d})
			if age < youngest {
				youngest, lastDims = age, d
			}
		}
		v := facts.Values{facts.TxRevenue: int64(1000+r.IntN(50000)) * 10_000, facts.TxCount: 1, facts.TxCountTotal: 1}
		rows = append(rows, enginetest.JourneyRow{Kind: enginetest.KindOrder, Time: at, Lead: lead,
			Order: fmt.Sprintf("O%d-%d", id, o), Currency: "BRL", Values: v})
		b := enginetest.BusinessRow{ProjectID: bj.project, Time: at, Kind: "order", Currency: "BRL", Dims: map[string]string{},
			Values: map[string]int64{"tx_revenue": v[facts.TxRevenue], "tx_revenue_net": v[facts.TxRevenue], "tx_count": 1, "tx_count_total": 1}}
		for i, c := range facts.TouchDimColumns {
			b.Dims[c] = lastDims.Values()[i].(string)
		}
		if last != nil {
			reported = append(reported, facts.Fact{ProjectID: bj.project, Time: at, AdEntity: *last, Currency: "BRL", Values: v})
			b.Source, b.CampaignID, b.AdID = last.Source, last.CampaignID, last.AdID
		}
		biz = append(biz, b)
	}
	return rows, reported, biz
}

// write stores n orders' credits (enginetest.OrderJourneys, facts.Credits), reported and business facts,
// generated in chunks of buyers by two goroutines, and returns how many touches the buyers had.
func (bj benchJourneys) write(ctx context.Context, conn driver.Conn, n int) (int64, error) {
	const chunk = 20_000 // orders of a chunk
	var touches atomic.Int64
	var next atomic.Int64
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := int(next.Add(1) - 1); c*chunk < n; c = int(next.Add(1) - 1) {
				r, rc := rand.New(rand.NewPCG(uint64(c), 7)), rand.New(rand.NewPCG(uint64(c), 8))
				var rows []enginetest.JourneyRow
				var reported []facts.Fact
				var biz []enginetest.BusinessRow
				for o, b := c*chunk, 0; o < min(n, (c+1)*chunk); b++ {
					k := min(1+r.IntN(5)/4, n-o) // 1 in 5 buyers orders twice
					rs, fs, bs := bj.buyer(r, rc, c*chunk+b, k)
					rows, reported, biz = append(rows, rs...), append(reported, fs...), append(biz, bs...)
					o += k
				}
				for _, row := range rows {
					if row.Kind == enginetest.KindTouch {
						touches.Add(1)
					}
				}
				err := enginetest.InsertJourneyCredits(ctx, conn, bj.project, bj.loc, enginetest.OrderJourneys(rows))
				if err == nil {
					err = facts.InsertFacts(ctx, conn, bj.loc, reported)
				}
				if err == nil {
					err = enginetest.InsertBusiness(ctx, conn, biz, func(string) *time.Location { return bj.loc })
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return 0, err
	default:
		return touches.Load(), nil
	}
}

// writeLookers stores n touches of visitors who never buy in journeys_by_lead (as the journey
// drainer does): they make up most touches, and no model query reads them.
func (bj benchJourneys) writeLookers(ctx context.Context, conn driver.Conn, n int64) error {
	if n <= 0 {
		return nil
	}
	return conn.Exec(ctx, fmt.Sprintf(`INSERT INTO journeys_by_lead (project_id, kind, ts, lead_id, origin, source, connection_id,
		account_id, campaign_id, adset_id, ad_id, outbox_id) SELECT ?, 'touch', toDateTime(%d + cityHash64(number) %% %d),
		concat('V', toString(intDiv(number, 3))), 'event', if(intDiv(a, 20) %% 2 = 0, 'alpha_ads', 'beta_ads'), 'con_1', 'act_1',
		concat('c', toString(intDiv(a, 20))), concat('s', toString(intDiv(a, 4))), concat('a', toString(a)), number + 1
		FROM (SELECT number, cityHash64(number, 1) %% %d AS a FROM numbers(%d))`, bj.from.Unix(), bj.days*86400, bj.ads, n), bj.project)
}
