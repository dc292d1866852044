package engine_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/facts"
)

// channelTouches are the marketing touches that are no ad, as the journeys carry them: an e-mail,
// a WhatsApp message, an organic search (a referrer, no UTM) and a partner's link.
var channelTouches = []facts.TouchDims{
	{UTMSource: "email", UTMMedium: "crm", UTMCampaign: "welcome", LandingPath: "/"},
	{UTMSource: "whatsapp", UTMMedium: "chat", LandingPath: "/promo"},
	{ReferrerHost: "google.com", LandingPath: "/"},
	{UTMSource: "partner", ReferrerHost: "blog.partner.com", LandingPath: "/p/1"},
}

var channelDevices = []string{"desktop", "mobile", "tablet"}

// generatedChannelJourneys are generatedJourneys' leads with every kind of touch: about half are
// ads (their UTM as the ad's network sends it: utm_source the network, utm_medium cpc,
// utm_campaign the campaign), the others e-mail, WhatsApp, organic and partner touches; each
// touch on a device.
func generatedChannelJourneys(seed uint64) []journey {
	r := rand.New(rand.NewPCG(seed, 2))
	js := generatedJourneys(seed)
	for i := range js {
		j := &js[i]
		if j.kind != "touch" {
			continue
		}
		if r.IntN(2) == 0 {
			j.ad, j.src, j.camp = "", "", ""
			j.dims = channelTouches[r.IntN(len(channelTouches))]
		} else {
			j.dims = facts.TouchDims{UTMSource: strings.TrimSuffix(j.src, "_ads"), UTMMedium: "cpc", UTMCampaign: j.camp,
				LandingPath: "/ad"}
		}
		j.dims.Device = channelDevices[r.IntN(len(channelDevices))]
	}
	return js
}

// touchDimValue is a credit's value of a traffic dimension, by column.
func touchDimValue(d facts.TouchDims, column string) string {
	for i, c := range facts.TouchDimColumns {
		if c == column {
			return d.Values()[i].(string)
		}
	}
	panic("not a touch dimension: " + column)
}

// TestChannelsAgainstReference: for every model, date, touch set and window, the traffic view's
// rows by touch dimensions (and by time buckets) are the reference's credits grouped by the
// credited touch's dimensions, the part with no touch on the row of null dimensions; they sum to
// every order of the range, to the cent, whatever the model (by conversion date). The ad view
// with either touch set is the reference's credits on ads, the shares of other touches on no row.
func TestChannelsAgainstReference(t *testing.T) {
	js := generatedChannelJourneys(23)
	svc, scope, loc, start, end, orderTotal := referenceMarch(t, js)
	bucket := map[string]func(time.Time) string{
		"":    func(time.Time) string { return "" },
		"day": func(t time.Time) string { return t.In(loc).Format(time.DateOnly) },
		"hour": func(t time.Time) string {
			l := t.In(loc)
			return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), 0, 0, 0, loc).Format(time.RFC3339)
		},
	}
	dimSets := [][]string{{}, {"utm_source"}, {"utm_medium", "device"}, {"referrer_host"}}
	for _, model := range engine.Models[1:] {
		for _, date := range engine.AttributionDates {
			for _, set := range facts.TouchSets {
				for _, window := range []int{1, 7, 28, 90} {
					credits := creditJourneys(js, model, time.Duration(window)*24*time.Hour, date == engine.DateClick, set)
					attr := fmt.Sprintf(`{"model":%q,"date":%q,"window_days":%d,"touches":%q}`, model, date, window, set)
					for gran, at := range bucket {
						for _, dims := range dimSets {
							name := fmt.Sprintf("%s %s by %v", attr, gran, dims)
							want := map[string][2]float64{}
							for _, c := range credits {
								if c.at.Before(start) || !c.at.Before(end) {
									continue
								}
								k := []string{at(c.at)}
								for _, d := range dims {
									k = append(k, touchDimValue(c.dims, d))
								}
								v := want[strings.Join(k, "|")]
								want[strings.Join(k, "|")] = [2]float64{v[0] + float64(c.revenue)/1e6, v[1] + float64(c.count)}
							}
							for k, v := range want {
								want[k] = [2]float64{v[0], refCount(v[1])}
							}
							got, sum := channelRows(t, svc, scope, attr, gran, `"dimensions":`+jsonOf(dims), append([]string{"date"}, dims...))
							compareCredits(t, name, got, want)
							if date == engine.DateConversion && math.Abs(sum-float64(orderTotal)/1e6) > 0.005 {
								t.Errorf("%s: traffic rows sum to %.2f, want every order's %.2f", name, sum, float64(orderTotal)/1e6)
							}
						}
					}
					want := map[string][2]float64{}
					for _, c := range credits {
						if c.source != "" && !c.at.Before(start) && c.at.Before(end) {
							v := want["|"+c.source+"|"+c.camp]
							want["|"+c.source+"|"+c.camp] = [2]float64{v[0] + float64(c.revenue)/1e6, v[1] + float64(c.count)}
						}
					}
					for k, v := range want {
						want[k] = [2]float64{v[0], refCount(v[1])}
					}
					got, _ := channelRows(t, svc, scope, attr, "", `"level":"campaign"`, []string{"date", "source", "campaign_id"})
					compareCredits(t, attr+" ad view by campaign", got, want)
				}
			}
		}
	}
}

// channelRows answers tx_revenue and tx_count over March 2024 with metadata members meta and
// returns the non-zero rows by their keys' values joined with "|" (null as ""), with the sum of
// their revenue.
func channelRows(t *testing.T, svc *engine.Service, scope engine.Scope, attr, gran, meta string, keys []string) (map[string][2]float64, float64) {
	t.Helper()
	tm := `{"start":"2024-03-01","end":"2024-03-30"`
	if gran != "" {
		tm += `,"granularity":"` + gran + `"`
	}
	res := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue","tx_count"],"time":`+tm+`},"metadata":{`+meta+
		`,"attribution":`+attr+`},"limit":50000}`)
	out := map[string][2]float64{}
	sum := 0.0
	for _, r := range res.Data {
		v := values(t, r)
		sum += v[0]
		if v == [2]float64{} {
			continue
		}
		var k []string
		for _, key := range keys {
			x, _ := r.Get(key)
			s, _ := x.(string)
			k = append(k, s)
		}
		out[strings.Join(k, "|")] = v
	}
	return out, sum
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
