package adsim

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// beta_ads reads: googleAds:search (paged) and googleAds:searchStream (batches), both taking a
// GAQL query. Rows are built flat (field -> value), filtered, ordered, and rendered as Google's
// JSON: nested camelCase objects, int64 values as strings, segments.hour as a number.

const betaMaxPage = 10000

// betaResources maps each FROM resource (and field prefix) to its level.
var betaResources = map[string]Level{
	"customer": LevelAccount, "campaign": LevelCampaign, "campaign_budget": LevelCampaign,
	"ad_group": LevelAdSet, "ad_group_ad": LevelAd,
}

func betaStatus(st Status) string {
	if st == Active {
		return "ENABLED"
	}
	return "PAUSED"
}

// betaAttrs are the attribute fields; o is the row's object at the field's level (nil for customer).
var betaAttrs = map[string]func(a *account, o *object, now int64) string{
	"customer.id":                       func(a *account, _ *object, _ int64) string { return a.id },
	"customer.resource_name":            func(a *account, _ *object, _ int64) string { return "customers/" + a.id },
	"customer.descriptive_name":         func(a *account, _ *object, _ int64) string { return a.name },
	"customer.currency_code":            func(a *account, _ *object, _ int64) string { return a.currency },
	"customer.time_zone":                func(a *account, _ *object, _ int64) string { return a.tz },
	"campaign.id":                       func(_ *account, o *object, _ int64) string { return o.id },
	"campaign.name":                     func(_ *account, o *object, _ int64) string { return o.title() },
	"campaign.status":                   func(_ *account, o *object, now int64) string { return betaStatus(o.statusAt(now)) },
	"campaign.resource_name":            func(a *account, o *object, _ int64) string { return betaName(a, "campaigns", o.id) },
	"campaign.campaign_budget":          func(a *account, o *object, _ int64) string { return betaName(a, "campaignBudgets", o.budgetID) },
	"campaign.advertising_channel_type": func(_ *account, o *object, _ int64) string { return o.objective },
	"campaign.start_date":               func(a *account, o *object, _ int64) string { return a.localTime(o.start, dayLayout) },
	"campaign_budget.id":                func(_ *account, o *object, _ int64) string { return o.budgetID },
	"campaign_budget.resource_name":     func(a *account, o *object, _ int64) string { return betaName(a, "campaignBudgets", o.budgetID) },
	"campaign_budget.period":            func(_ *account, _ *object, _ int64) string { return "DAILY" },
	"campaign_budget.amount_micros": func(a *account, o *object, now int64) string {
		return strconv.FormatInt(o.budgetAt(now)*microsPerMinor(a.exp), 10)
	},
	"ad_group.id":            func(_ *account, o *object, _ int64) string { return o.id },
	"ad_group.name":          func(_ *account, o *object, _ int64) string { return o.title() },
	"ad_group.status":        func(_ *account, o *object, now int64) string { return betaStatus(o.statusAt(now)) },
	"ad_group.resource_name": func(a *account, o *object, _ int64) string { return betaName(a, "adGroups", o.id) },
	"ad_group.campaign":      func(a *account, o *object, _ int64) string { return betaName(a, "campaigns", o.parent.id) },
	"ad_group_ad.ad.id":      func(_ *account, o *object, _ int64) string { return o.id },
	"ad_group_ad.ad.name":    func(_ *account, o *object, _ int64) string { return o.title() },
	"ad_group_ad.status":     func(_ *account, o *object, now int64) string { return betaStatus(o.statusAt(now)) },
	"ad_group_ad.resource_name": func(a *account, o *object, _ int64) string {
		return betaName(a, "adGroupAds", o.parent.id+"~"+o.id)
	},
	"ad_group_ad.ad_group": func(a *account, o *object, _ int64) string { return betaName(a, "adGroups", o.parent.id) },
}

// betaMetrics are the metric fields.
var betaMetrics = map[string]func(m Metrics, exp int) int64{
	"metrics.cost_micros":              func(m Metrics, exp int) int64 { return m.Spend * microsPerMinor(exp) },
	"metrics.impressions":              func(m Metrics, _ int) int64 { return m.Impressions },
	"metrics.clicks":                   func(m Metrics, _ int) int64 { return m.Clicks },
	"metrics.video_starts":             func(m Metrics, _ int) int64 { return m.VideoPlays },
	"metrics.video_views":              func(m Metrics, _ int) int64 { return m.VideoViews3s },
	"metrics.video_quartile_p75_views": func(m Metrics, _ int) int64 { return m.VideoViewsP75 },
}

func betaName(a *account, kind, id string) string { return "customers/" + a.id + "/" + kind + "/" + id }

type betaSearchBody struct {
	Query                   string `json:"query"`
	PageToken               string `json:"pageToken"`
	PageSize                int    `json:"pageSize"`
	ReturnTotalResultsCount bool   `json:"returnTotalResultsCount"`
}

func (s *Sim) betaSearch(w http.ResponseWriter, r *http.Request, a *account, trace string, stream bool) {
	d := betaDialect{}
	var body betaSearchBody
	if err := decodeJSON(r, &body); err != nil {
		d.writeError(w, &apiErr{kind: errInvalid, msg: err.Error()}, trace)
		return
	}
	q, gerr := parseGAQL(body.Query)
	if gerr == nil {
		var results []map[string]any
		if results, gerr = s.betaRun(a, q, s.now()); gerr == nil {
			s.betaAnswer(w, body, q, results, trace, stream)
			return
		}
	}
	d.writeError(w, &apiErr{kind: errInvalid, reason: "queryError:" + gerr.reason, msg: gerr.msg}, trace)
}

// betaAnswer writes one page (search) or every batch (searchStream) of results.
func (s *Sim) betaAnswer(w http.ResponseWriter, body betaSearchBody, q *gaqlQuery, results []map[string]any, trace string, stream bool) {
	mask := make([]string, len(q.fields))
	for i, f := range q.fields {
		mask[i] = camelPath(f)
	}
	fieldMask := strings.Join(mask, ",")
	if stream {
		batches := []map[string]any{}
		for lo := 0; lo < len(results) || lo == 0; lo += betaMaxPage {
			batch := map[string]any{"fieldMask": fieldMask, "requestId": trace}
			if hi := min(lo+betaMaxPage, len(results)); hi > lo {
				batch["results"] = results[lo:hi]
			}
			batches = append(batches, batch)
		}
		writeJSON(w, http.StatusOK, batches)
		return
	}
	size := body.PageSize
	if size == 0 {
		size = betaMaxPage
	}
	if size < 0 || size > betaMaxPage {
		betaDialect{}.writeError(w, &apiErr{kind: errInvalid, reason: "requestError:INVALID_PAGE_SIZE",
			msg: fmt.Sprintf("pageSize must be 1 to %d", betaMaxPage)}, trace)
		return
	}
	offset := 0
	if body.PageToken != "" {
		n, err := decodeCursor(body.PageToken, body.Query)
		if err != nil {
			betaDialect{}.writeError(w, &apiErr{kind: errInvalid, reason: "requestError:INVALID_PAGE_TOKEN", msg: err.Error()}, trace)
			return
		}
		offset = n
	}
	lo, hi := window(len(results), offset, size)
	out := map[string]any{"results": results[lo:hi], "fieldMask": fieldMask, "requestId": trace}
	if hi < len(results) {
		out["nextPageToken"] = encodeCursor(hi, body.Query)
	}
	if body.ReturnTotalResultsCount {
		out["totalResultsCount"] = strconv.Itoa(len(results))
	}
	writeJSON(w, http.StatusOK, out)
}

// betaRun evaluates q over account a at now.
func (s *Sim) betaRun(a *account, q *gaqlQuery, now int64) ([]map[string]any, *gaqlError) {
	level, ok := betaResources[q.resource]
	if !ok {
		return nil, gaqlFail("BAD_RESOURCE_TYPE_IN_FROM_CLAUSE", "resource %q is not served (customer, campaign, campaign_budget, ad_group, ad_group_ad)", q.resource)
	}
	needed := append([]string{}, q.fields...)
	for _, c := range q.conds {
		needed = append(needed, c.field)
	}
	for _, o := range q.order {
		needed = append(needed, o.field)
	}
	metricsMode := false
	for _, f := range needed {
		if err := betaAllowed(f, q.resource, level); err != nil {
			return nil, err
		}
		metricsMode = metricsMode || strings.HasPrefix(f, "metrics.") || strings.HasPrefix(f, "segments.")
	}
	var flat []map[string]string
	if metricsMode {
		since, until, err := s.betaRange(a, q, now)
		if err != nil {
			return nil, err
		}
		g := grouping{level: level, byDay: slices.Contains(q.fields, "segments.date"), byHour: slices.Contains(q.fields, "segments.hour")}
		rows := s.rows(a, since, until, g, now, false)
		s.mu.RLock()
		for _, r := range rows {
			flat = append(flat, betaFlat(a, r.obj, &r, needed, now))
		}
		s.mu.RUnlock()
	} else {
		objs := []*object{nil}
		if level != LevelAccount {
			objs = a.ofLevel(level)
		}
		s.mu.RLock()
		for _, o := range objs {
			flat = append(flat, betaFlat(a, o, nil, needed, now))
		}
		s.mu.RUnlock()
	}
	kept := flat[:0]
	for _, f := range flat {
		ok := true
		for _, c := range q.conds {
			ok = ok && (c.field == "segments.date" || c.match(f[c.field]))
		}
		if ok {
			kept = append(kept, f)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		for _, o := range q.order {
			if c := gaqlCompare(kept[i][o.field], kept[j][o.field]); c != 0 {
				return (c < 0) != o.desc
			}
		}
		return false
	})
	if q.limit > 0 && len(kept) > q.limit {
		kept = kept[:q.limit]
	}
	out := make([]map[string]any, len(kept))
	for i, f := range kept {
		out[i] = betaNest(f, q.fields)
	}
	return out, nil
}

// betaAllowed checks that field f exists and may be used with the FROM resource at level.
func betaAllowed(f, resource string, level Level) *gaqlError {
	switch {
	case f == "segments.date" || f == "segments.hour":
	case betaMetrics[f] != nil:
		if resource == "campaign_budget" {
			return gaqlFail("PROHIBITED_METRIC_IN_SELECT_OR_WHERE_CLAUSE", "metrics cannot be selected from campaign_budget")
		}
	case betaAttrs[f] != nil:
		prefix, _, _ := strings.Cut(f, ".")
		if levelDepth(betaResources[prefix]) > levelDepth(level) {
			return gaqlFail("PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE", "%s cannot be selected from %s", f, resource)
		}
	default:
		return gaqlFail("UNRECOGNIZED_FIELD", "unrecognized field %q", f)
	}
	return nil
}

// betaFlat computes the needed fields of one row: o is the entity at the query's level (nil at
// customer level); r is the metrics row, nil for an attribute-only query. The caller holds s.mu.
func betaFlat(a *account, o *object, r *row, needed []string, now int64) map[string]string {
	out := map[string]string{}
	for _, f := range needed {
		switch {
		case f == "segments.date" && r != nil:
			out[f] = r.day.String()
		case f == "segments.hour" && r != nil:
			out[f] = strconv.Itoa(r.hour)
		case betaMetrics[f] != nil && r != nil:
			out[f] = strconv.FormatInt(betaMetrics[f](r.m, a.exp), 10)
		case betaAttrs[f] != nil:
			prefix, _, _ := strings.Cut(f, ".")
			var at *object
			if o != nil {
				at = o.ancestor(betaResources[prefix])
			}
			if at != nil || betaResources[prefix] == LevelAccount {
				out[f] = betaAttrs[f](a, at, now)
			}
		}
	}
	return out
}

// betaNest renders the selected fields of a flat row as Google's nested JSON.
func betaNest(flat map[string]string, fields []string) map[string]any {
	out := map[string]any{}
	for _, f := range fields {
		v, ok := flat[f]
		if !ok {
			continue
		}
		parts := strings.Split(f, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			p = camel(p)
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		if f == "segments.hour" {
			n, _ := strconv.Atoi(v)
			m[camel(parts[len(parts)-1])] = n
		} else {
			m[camel(parts[len(parts)-1])] = v
		}
	}
	return out
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func camelPath(f string) string {
	parts := strings.Split(f, ".")
	for i := range parts {
		parts[i] = camel(parts[i])
	}
	return strings.Join(parts, ".")
}

// betaRange reads the segments.date conditions as local days. A query that selects a date or
// hour segment needs a finite range; one with metrics only defaults to all of history.
func (s *Sim) betaRange(a *account, q *gaqlQuery, now int64) (day, day, *gaqlError) {
	today := a.today(now)
	first, _ := a.localOf(s.start)
	since, until := day(-1<<31), day(1<<31-1)
	seen := false
	for _, c := range q.conds {
		if c.field != "segments.date" {
			continue
		}
		seen = true
		var ds []day
		for _, v := range c.vals {
			if c.op == "DURING" {
				break
			}
			d, err := parseDay(v)
			if err != nil {
				return 0, 0, gaqlFail("INVALID_VALUE_WITH_DURING_OPERATOR", "segments.date: %v", err)
			}
			ds = append(ds, d)
		}
		lo, hi := since, until
		switch c.op {
		case "=":
			lo, hi = ds[0], ds[0]
		case "BETWEEN":
			lo, hi = ds[0], ds[1]
		case ">=":
			lo = ds[0]
		case ">":
			lo = ds[0] + 1
		case "<=":
			hi = ds[0]
		case "<":
			hi = ds[0] - 1
		case "DURING":
			n := map[string]day{"TODAY": 0, "YESTERDAY": 1, "LAST_7_DAYS": 7, "LAST_14_DAYS": 14, "LAST_30_DAYS": 30}
			k, ok := n[c.vals[0]]
			if !ok {
				return 0, 0, gaqlFail("INVALID_VALUE_WITH_DURING_OPERATOR", "DURING %s is not supported (TODAY, YESTERDAY, LAST_7_DAYS, LAST_14_DAYS, LAST_30_DAYS)", c.vals[0])
			}
			lo, hi = today-k, today-min(k, 1)
			if k == 0 {
				hi = today
			}
		default:
			return 0, 0, gaqlFail("INVALID_OPERATOR", "segments.date takes =, >, >=, <, <=, BETWEEN or DURING")
		}
		since, until = max(since, lo), min(until, hi)
	}
	if !seen && !slices.Contains(q.fields, "segments.date") && !slices.Contains(q.fields, "segments.hour") {
		return first, today, nil
	}
	if since == day(-1<<31) || until == day(1<<31-1) {
		return 0, 0, gaqlFail("EXPECTED_FILTERS_ON_DATE_RANGE", "a query with segments.date or segments.hour needs a finite segments.date range in WHERE")
	}
	if since > until {
		since = until + 1 // an empty range: no rows
	}
	return since, until, nil
}
