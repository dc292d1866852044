package facts

import (
	"slices"
	"strings"
)

// A Family is one stream of fact rows and the ClickHouse tables that keep it: its key columns,
// its measures (those of Specs whose origin it keeps), its tables at each resolution and how
// they roll up. The column lists of its inserts, its outbox codecs, the engine's table and
// dimension registries and the schema conformance test (schema/family_test.go: the live columns
// of every table against Table.Columns) are derived from it, so that a measure is declared once,
// in Specs, and a migration adds its columns.
type Family struct {
	Name string
	// Origins are the origins of the measures the family keeps.
	Origins []Origin
	// Measures are its measures, in Measure order (Specs of Origins).
	Measures []Measure
	// Keys are the key columns a row carries besides its project and times, in insert order:
	// the ad entity among them (AdEntityColumns), and the family's own (business dimensions,
	// journey ids).
	Keys []Column
	// Window is the credits' window column, on each of their tables: the first window of
	// attribution that counts a delta.
	Window *Column
	// Tables are the family's tables, raw first; Rollup says how the others are kept.
	Tables []Table
	Rollup Rollup
}

// Column is a stored column: its name and ClickHouse type.
type Column struct{ Name, Type string }

// Resolution is what a table's rows are keyed in time by.
type Resolution uint8

// The resolutions.
const (
	// Minute: ts (the minute), hour (the local hour's start) and day (the local day).
	Minute Resolution = iota
	// Hour: hour and day.
	Hour
	// Day: day.
	Day
	// Instant: ts only (journeys, whose readers keep no local time).
	Instant
)

// TimeColumns are the resolution's time columns, the sorting key's first.
func (r Resolution) TimeColumns() []Column {
	ts, hour, day := Column{"ts", "DateTime"}, Column{"hour", "DateTime"}, Column{"day", "Date"}
	switch r {
	case Minute:
		return []Column{ts, hour, day}
	case Hour:
		return []Column{hour, day}
	case Day:
		return []Column{day}
	}
	return []Column{ts}
}

// Rollup is how a family's coarser tables are kept.
type Rollup uint8

// The rollups.
const (
	// RollupNone: the family has one table (journeys), read by its primary key.
	RollupNone Rollup = iota
	// RollupSum: SummingMergeTree tables fed by materialized views reading the raw table, each
	// summing every measure (CLICKHOUSE.md: no chained views).
	RollupSum
)

// Table is one table of a family.
type Table struct {
	Name       string
	Resolution Resolution
	// Columns are every column but the measures (each an Int64 column), in table order.
	Columns []Column
	// Views are the materialized views that fill it (each outputs its columns), none for a
	// table the application writes.
	Views []string
	// Form is how the table keys its rows: every key column (FormWide), or a rollup of few rows
	// for the queries about one or two dimensions (the business family) or about the traffic
	// dimensions only (the credits).
	Form Form
	// Landing marks a table sync batches land in (facts/batches.go), whose views feed the
	// rollups: it holds only the facts known per hour or per day.
	Landing bool
}

// Form is how a table keys its rows: by every key column or as one of the rollups below.
type Form uint8

// The forms.
const (
	// FormWide: every key column (a table of any family).
	FormWide Form = iota
	// FormPerDimension: one row per dimension and value (business_dim_*, 0009).
	FormPerDimension
	// FormPairs: one row per pair of paired dimensions (BizPairs) and their values
	// (business_pair_daily, 0017).
	FormPairs
	// FormPerDimensionEntity: one row per dimension, value and ad entity
	// (business_dim_entity_daily, 0017), for a dimension by a level, source or connection.
	FormPerDimensionEntity
	// FormByTraffic: every key column but the ad entity's (credits_traffic_daily, 0016), for a
	// traffic-view query that reads no entity.
	FormByTraffic
)

// formKeys are the key columns of a rollup of form f, in table order (nil: the family's).
func formKeys(f Form) []Column {
	kind := Column{"kind", "String"}
	switch f {
	case FormPerDimension:
		return []Column{kind, {"dimension", "String"}, {"value", "String"}, currencyColumn}
	case FormPairs:
		return cat([]Column{kind}, strs("dimension_a", "value_a", "dimension_b", "value_b"), []Column{currencyColumn, backfilledColumn})
	case FormPerDimensionEntity:
		return cat([]Column{kind}, strs(AdEntityColumns...), strs("dimension", "value"), []Column{currencyColumn, backfilledColumn})
	}
	return nil
}

// The column groups the families share.
var (
	projectColumn  = Column{"project_id", "String"}
	currencyColumn = Column{"currency", "FixedString(3)"}
	outboxColumn   = Column{"outbox_id", "UInt64"}
	// pairRollupsColumn is 1 on the business rows the pair rollups' views count (every row written
	// since 0017), 0 on those stored before, which the pair backfill counts (PairBackfill).
	pairRollupsColumn = Column{"pair_rollups", "UInt8"}
	// backfilledColumn is 1 on the pair rollups' rows the pair backfill wrote, 0 on the views'.
	backfilledColumn = Column{"backfilled", "UInt8"}
	// batchColumn is a sync batch's id (facts/batches.go), on the tables sync batches land in.
	batchColumn = Column{"batch_id", "String"}
)

// strs are String columns of those names.
func strs(names ...string) []Column {
	out := make([]Column, len(names))
	for i, n := range names {
		out[i] = Column{n, "String"}
	}
	return out
}

// cat concatenates column lists.
func cat(groups ...[]Column) []Column {
	var out []Column
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// entityKeys are the keys of the ad facts and the credits: the ad entity and the currency.
var entityKeys = cat(strs(AdEntityColumns...), []Column{currencyColumn})

// BizDimension is one traffic or order dimension of the business family: a key column of its
// rows and a value of its per-dimension rollups' dimension column.
type BizDimension struct {
	Column string
	// Item marks a product's dimension, set on item rows only (BizItem).
	Item bool
	// Paired marks a dimension of few values (a channel, a device, a payment method): every
	// pair of paired dimensions has its rows in the pair rollups (BizPairs). Free text (ad
	// contents, terms, paths) and products are not paired: their pairs would hold about as many
	// rows as the raw table.
	Paired bool
}

// BizDimensions are the business family's dimensions, in the column order of its tables.
var BizDimensions = []BizDimension{
	{Column: "utm_source", Paired: true}, {Column: "utm_medium", Paired: true}, {Column: "utm_campaign", Paired: true},
	{Column: "utm_content"}, {Column: "utm_term"}, {Column: "referrer_host", Paired: true}, {Column: "landing_path"},
	{Column: "device", Paired: true}, {Column: "product_id", Item: true}, {Column: "product_name", Item: true},
	{Column: "payment_method", Paired: true}, {Column: "customer_type", Paired: true},
}

// BizPairs are the pairs of paired dimensions that the pair rollups keep, each in BizDimensions
// order (the first is the pair's dimension_a): every pair of them, in that order.
var BizPairs = func() [][2]string {
	var out [][2]string
	for i, a := range BizDimensions {
		for _, b := range BizDimensions[i+1:] {
			if a.Paired && b.Paired {
				out = append(out, [2]string{a.Column, b.Column})
			}
		}
	}
	return out
}()

// bizKeys are the business family's keys (BizKeys), in BizKeyColumns order.
var bizKeys = func() []Column {
	dims := make([]string, len(BizDimensions))
	for i, d := range BizDimensions {
		dims[i] = d.Column
	}
	return cat(strs("kind"), strs(AdEntityColumns...), strs(dims...), []Column{currencyColumn})
}()

// journeyKeys are a journey row's keys besides its project and time (journeys.JourneyRow): a
// touch's traffic dimensions come after the entity and currency (schema/clickhouse/0013).
var journeyKeys = cat(strs("kind", "lead_id", "merged_into", "order_id", "event_id", "origin"), entityKeys,
	strs(TouchDimColumns...))

// journeyColumns are the journey tables' columns but the measures: the kind before the time.
var journeyColumns = cat([]Column{projectColumn, journeyKeys[0]}, Instant.TimeColumns(), journeyKeys[1:], []Column{outboxColumn})

// creditWindow is the credits' window column: a row's deltas count in the windows of
// window_days days or more.
var creditWindow = Column{"window_days", "UInt8"}

// creditLead are the credits' columns before their times: the model, the touch set it credits
// (TouchSets) and the date it credits by.
var creditLead = []Column{{"model", "String"}, {"touches", "String"}, {"by_click", "UInt8"}}

// creditKeys are the credits' keys: the ad entity, the touch's traffic dimensions
// (TouchDimColumns) and the currency.
var creditKeys = cat(strs(AdEntityColumns...), strs(TouchDimColumns...), []Column{currencyColumn})

// The fact families.
var (
	// FactsFamily is the ad facts: the networks' metrics and the business facts attributed to
	// an ad entity (schema/clickhouse/0002, 0005, 0006). Sync batches of hourly or daily facts
	// land in facts_hourly_in and facts_daily_in, whose views feed the rollups.
	FactsFamily = newFamily(Family{Name: "facts", Origins: []Origin{OriginAd, OriginEvent, OriginOrder},
		Keys: entityKeys, Rollup: RollupSum, Tables: []Table{
			{Name: "facts_raw", Resolution: Minute, Columns: cat([]Column{projectColumn}, Minute.TimeColumns(), entityKeys,
				[]Column{outboxColumn, batchColumn})},
			{Name: "facts_hourly", Resolution: Hour, Views: []string{"facts_hourly_mv", "facts_hourly_in_hourly_mv"}},
			{Name: "facts_daily", Resolution: Day, Views: []string{"facts_daily_mv", "facts_hourly_in_daily_mv", "facts_daily_in_daily_mv"}},
			{Name: "facts_hourly_in", Resolution: Hour, Landing: true, Columns: cat([]Column{batchColumn, projectColumn}, Hour.TimeColumns(), entityKeys)},
			{Name: "facts_daily_in", Resolution: Day, Landing: true, Columns: cat([]Column{batchColumn, projectColumn}, Day.TimeColumns(), entityKeys)},
		}})
	// BusinessFamily is every event and order of a project, attributed or not (0008), with its
	// per-dimension rollups (0009), its pair rollups and per-dimension rollups by ad entity (0017).
	BusinessFamily = newFamily(Family{Name: "business", Origins: []Origin{OriginEvent, OriginOrder, OriginOrderLine},
		Keys: bizKeys, Rollup: RollupSum, Tables: []Table{
			{Name: "business_raw", Resolution: Minute, Columns: cat([]Column{projectColumn}, Minute.TimeColumns(), bizKeys,
				[]Column{outboxColumn, pairRollupsColumn})},
			{Name: "business_hourly", Resolution: Hour, Views: []string{"business_hourly_mv"}},
			{Name: "business_daily", Resolution: Day, Views: []string{"business_daily_mv"}},
			{Name: "business_dim_hourly", Resolution: Hour, Form: FormPerDimension, Views: []string{"business_dim_hourly_mv"}},
			{Name: "business_dim_daily", Resolution: Day, Form: FormPerDimension, Views: []string{"business_dim_daily_mv"}},
			{Name: "business_pair_daily", Resolution: Day, Form: FormPairs, Views: []string{"business_pair_daily_mv"}},
			{Name: "business_dim_entity_daily", Resolution: Day, Form: FormPerDimensionEntity, Views: []string{"business_dim_entity_daily_mv"}},
		}})
	// JourneysFamily is the touches, orders and merges of each lead that models credit (0010;
	// journeys_by_lead, 0011, is its copy sorted by lead, fed by the application; 0013 adds the
	// touches' traffic dimensions to both).
	JourneysFamily = newFamily(Family{Name: "journeys", Origins: []Origin{OriginOrder}, Keys: journeyKeys,
		Rollup: RollupNone, Tables: []Table{
			{Name: "journeys", Resolution: Instant, Columns: journeyColumns},
			{Name: "journeys_by_lead", Resolution: Instant, Columns: journeyColumns},
		}})
	// CreditsFamily is the credits of each order under every model, touch set and window (0011;
	// 0014 adds the touch set and the touch's dimensions; 0015 keeps each delta's own window in
	// the rollups, fed by credits_raw's views; 0016 adds the daily rollup without the entity).
	CreditsFamily = newFamily(Family{Name: "credits", Origins: []Origin{OriginOrder}, Keys: creditKeys,
		Window: &creditWindow, Rollup: RollupSum, Tables: []Table{
			{Name: creditsRaw, Resolution: Minute},
			{Name: "credits_hourly", Resolution: Hour, Views: []string{"credits_hourly_mv"}},
			{Name: "credits_daily", Resolution: Day, Views: []string{"credits_daily_mv"}},
			{Name: "credits_traffic_daily", Resolution: Day, Form: FormByTraffic, Views: []string{"credits_traffic_daily_mv"}},
		}})
	// Families are every family.
	Families = []*Family{FactsFamily, BusinessFamily, JourneysFamily, CreditsFamily}
)

// newFamily completes f: its measures, and the columns of each table that does not list them:
// the project, the credits' model and window, the times, the keys, and outbox_id on the raw
// table (the first), which keeps each row's outbox row.
func newFamily(f Family) *Family {
	f.Measures = From(f.Origins...)
	for i := range f.Tables {
		t := &f.Tables[i]
		if t.Columns != nil {
			continue
		}
		raw := i == 0
		cols := []Column{projectColumn}
		if f.Window != nil {
			cols = append(append(cols, creditLead...), *f.Window)
		}
		keys := f.Keys
		switch t.Form {
		case FormWide:
		case FormByTraffic:
			keys = slices.DeleteFunc(slices.Clone(keys), func(c Column) bool { return slices.Contains(AdEntityColumns, c.Name) })
		default:
			keys = formKeys(t.Form)
		}
		cols = cat(cols, t.Resolution.TimeColumns(), keys)
		if raw {
			cols = append(cols, outboxColumn)
		}
		t.Columns = cols
	}
	return &f
}

// Table is the family's table of that name, nil when it has none.
func (f *Family) Table(name string) *Table {
	for i := range f.Tables {
		if f.Tables[i].Name == name {
			return &f.Tables[i]
		}
	}
	return nil
}

// At is the name of the family's table at resolution r that holds every row (not a landing
// table or a rollup of another form), "" when it has none.
func (f *Family) At(r Resolution) string { return f.FormAt(FormWide, r) }

// FormAt is the name of the family's rollup of form form at resolution r, else its table at r
// (At): the raw table for the minute.
func (f *Family) FormAt(form Form, r Resolution) string {
	for _, t := range f.Tables {
		if t.Resolution == r && t.Form == form && !t.Landing {
			return t.Name
		}
	}
	if form != FormWide {
		return f.At(r)
	}
	return ""
}

// ByTrafficAt is the name of the family's rollup keyed by the traffic dimensions only at
// resolution r, "" when it has none (where FormAt gives the table of every key).
func (f *Family) ByTrafficAt(r Resolution) string {
	if name := f.FormAt(FormByTraffic, r); name != f.At(r) {
		return name
	}
	return ""
}

// MeasureColumns are f's measure columns, separated by ", " (a SELECT's or an INSERT's list).
func (f *Family) MeasureColumns() string { return Columns(f.Measures, "") }

// names are cs's names.
func names(cs []Column) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// ColumnNames are the names of every column of f's table (one of f's), its measures among them,
// in table order: the measures after the last key.
func (f *Family) ColumnNames(table string) []string {
	t := f.Table(table)
	if t == nil {
		panic("facts: no table " + table + " in family " + f.Name)
	}
	cols := names(t.Columns)
	last := slices.IndexFunc(cols, func(c string) bool { return c == f.Keys[len(f.Keys)-1].Name }) + 1
	return slices.Concat(cols[:last], ColumnNames(f.Measures), cols[last:])
}

// KeyColumns are f's key columns' names, in insert order.
func (f *Family) KeyColumns() []string { return names(f.Keys) }

// insertSQL is the INSERT of f's table (which must be one of f's) writing project_id, lead, the
// table's time columns, f's keys, f's measures and trail, in that order.
func (f *Family) insertSQL(table string, lead []string, trail ...string) string {
	t := f.Table(table)
	if t == nil {
		panic("facts: no table " + table + " in family " + f.Name)
	}
	cols := slices.Concat([]string{projectColumn.Name}, lead, names(t.Resolution.TimeColumns()), f.KeyColumns(), ColumnNames(f.Measures), trail)
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ")"
}
