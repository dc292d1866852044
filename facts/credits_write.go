package facts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// CreditBatch is credit rows of one project in zone Zone, from one credit_outbox row (OutboxID;
// 0 for any other writer).
type CreditBatch struct {
	ProjectID string
	Zone      *time.Location
	OutboxID  uint64
	Credits   []Credit
}

// creditsLanding is the table credits land in (schema/clickhouse/0014): a Null table whose views
// route each row by its grain, the Resolution of the table it is for, to credits_raw,
// credits_hourly or credits_daily.
const creditsLanding = "credits_in"

// grainColumn is the landing table's grain column.
var grainColumn = Column{"grain", "UInt8"}

// InsertCredits writes batches as one INSERT: each credit into credits_raw at its minute, local
// hour and local day in its batch's zone, as facts_raw's rows, and into the rollups spread into
// its window blocks (credit_blocks.go) and summed by the rollups' keys here, so that ClickHouse
// only stores rows (its views neither spread nor group). One statement keeps the credit drainer's
// exactly-once look-up of credits_raw.outbox_id and its query fence whole: the rollups land with
// the raw rows or not at all.
func InsertCredits(ctx context.Context, conn driver.Conn, batches []CreditBatch) error {
	cols := creditRows(batches)
	names := CreditsFamily.ColumnNames(creditsLanding)
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO "+creditsLanding+" ("+strings.Join(names, ", ")+")")
	if err != nil {
		return fmt.Errorf("facts: insert credits: %w", err)
	}
	defer batch.Close()
	for i, name := range names {
		if err := batch.Column(i).Append(cols.column(name)); err != nil {
			return fmt.Errorf("facts: insert credits: column %s: %w", name, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert credits: %w", err)
	}
	return nil
}

// creditOwner is what a credit is of besides its model, set, date, window and time: its project,
// touch and currency. Rows are grouped by its index, so that a map hashes its strings once per
// credit and not once per window block.
type creditOwner struct {
	project  string
	entity   AdEntity
	dims     TouchDims
	currency string
}

// rollupKey is a rollup row's key: the grain (Hour or Day) and what credits_hourly or
// credits_daily sums by (hour is 0 in a daily row).
type rollupKey struct {
	grain          Resolution
	owner          int
	model, touches string
	byClick        bool
	block          WindowBlock
	hour, day      int64 // Unix seconds
}

// creditColumns are the landing table's rows as columns, each named as the table's column.
type creditColumns struct {
	grain, byClick, windowDays, windowLo, windowHi []uint8
	project, model, touches                        []string
	ts, hour, day                                  []time.Time
	keys                                           [][]string // of CreditsFamily.Keys
	measures                                       [][]int64  // of CreditsFamily.Measures
	outbox                                         []uint64
}

// minuteColumns are the time columns of the landing table: ts, hour, day.
var minuteColumns = Minute.TimeColumns()

// epoch fills the time columns a row's grain has not.
var epoch = time.Unix(0, 0).UTC()

// creditRows are the landing rows of batches: every credit as a raw row, then the rollup rows,
// each the sum of the credits' deltas of its key, in the order their keys first appear.
func creditRows(batches []CreditBatch) *creditColumns {
	c := &creditColumns{keys: make([][]string, len(CreditsFamily.Keys)), measures: make([][]int64, len(CreditsFamily.Measures))}
	owners := map[creditOwner]int{}
	var ownerOf []creditOwner
	var ownerKeys [][]string // of CreditsFamily.Keys, by owner
	index := map[rollupKey]int{}
	var keys []rollupKey
	var sums []Values
	blocks := make([]WindowBlock, 0, len(WindowBlockSizes))
	for _, b := range batches {
		for _, cr := range b.Credits {
			o := creditOwner{project: b.ProjectID, entity: cr.Entity, dims: cr.Dims, currency: cr.Currency}
			id, ok := owners[o]
			if !ok {
				id = len(ownerKeys)
				owners[o] = id
				ownerOf, ownerKeys = append(ownerOf, o), append(ownerKeys, o.keys())
			}
			minute, hour, day := Times(cr.Time, b.Zone)
			c.add(Minute, b.ProjectID, cr.Model, cr.Touches, cr.ByClick, cr.WindowDays, WindowBlock{}, minute, hour, day,
				ownerKeys[id], cr.Values, b.OutboxID)
			blocks = appendWindowBlocks(blocks[:0], cr.WindowDays)
			for _, grain := range []Resolution{Hour, Day} {
				k := rollupKey{grain: grain, owner: id, model: cr.Model, touches: cr.Touches, byClick: cr.ByClick, day: day.Unix()}
				if grain == Hour {
					k.hour = hour.Unix()
				}
				for _, blk := range blocks {
					k.block = blk
					i, ok := index[k]
					if !ok {
						i = len(keys)
						index[k] = i
						keys, sums = append(keys, k), append(sums, Values{})
					}
					sums[i] = sums[i].Add(cr.Values)
				}
			}
		}
	}
	for i, k := range keys {
		hour := epoch
		if k.grain == Hour {
			hour = time.Unix(k.hour, 0).UTC()
		}
		c.add(k.grain, ownerOf[k.owner].project, k.model, k.touches, k.byClick, 0, k.block, epoch, hour, time.Unix(k.day, 0).UTC(),
			ownerKeys[k.owner], sums[i], 0)
	}
	return c
}

// keys are o's values of CreditsFamily.Keys, in their order: the entity's, the dimensions', the
// currency.
func (o creditOwner) keys() []string {
	out := o.entity.List()
	for _, v := range o.dims.Values() {
		out = append(out, v.(string))
	}
	return append(out, o.currency)
}

// add appends a row.
func (c *creditColumns) add(grain Resolution, project, model, touches string, byClick bool, windowDays uint8, blk WindowBlock,
	ts, hour, day time.Time, keys []string, v Values, outbox uint64) {
	click := uint8(0)
	if byClick {
		click = 1
	}
	c.grain, c.byClick = append(c.grain, uint8(grain)), append(c.byClick, click)
	c.windowDays, c.windowLo, c.windowHi = append(c.windowDays, windowDays), append(c.windowLo, blk.Lo), append(c.windowHi, blk.Hi)
	c.project, c.model, c.touches = append(c.project, project), append(c.model, model), append(c.touches, touches)
	c.ts, c.hour, c.day = append(c.ts, ts), append(c.hour, hour), append(c.day, day)
	for i, k := range keys {
		c.keys[i] = append(c.keys[i], k)
	}
	for i, m := range CreditsFamily.Measures {
		c.measures[i] = append(c.measures[i], v[m])
	}
	c.outbox = append(c.outbox, outbox)
}

// column is the column of that name of the landing table (CreditsFamily's credits_in).
func (c *creditColumns) column(name string) any {
	switch name {
	case grainColumn.Name:
		return c.grain
	case projectColumn.Name:
		return c.project
	case creditLead[0].Name:
		return c.model
	case creditLead[1].Name:
		return c.touches
	case creditLead[2].Name:
		return c.byClick
	case creditWindows.Raw.Name:
		return c.windowDays
	case creditWindows.Low.Name:
		return c.windowLo
	case creditWindows.High.Name:
		return c.windowHi
	case minuteColumns[0].Name:
		return c.ts
	case minuteColumns[1].Name:
		return c.hour
	case minuteColumns[2].Name:
		return c.day
	case outboxColumn.Name:
		return c.outbox
	}
	for i, k := range CreditsFamily.Keys {
		if k.Name == name {
			return c.keys[i]
		}
	}
	for i, m := range CreditsFamily.Measures {
		if Specs[m].Column == name {
			return c.measures[i]
		}
	}
	panic("facts: credits_in has no column " + name)
}
