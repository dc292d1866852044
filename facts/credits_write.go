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

// creditOwner is what a credit row is of besides its date, window and time: its project, model,
// touch set, touch and currency. Rows are keyed by its index, so that a map hashes its strings
// once per credit and not once per window block, and the keys hold no pointer for the collector
// to scan.
type creditOwner struct {
	project, model, touches string
	entity                  AdEntity
	dims                    TouchDims
	currency                string
}

// rollupKey is a rollup row's key: the grain (Hour or Day) and what credits_hourly or
// credits_daily sums by (hour is 0 in a daily row).
type rollupKey struct {
	owner     int32
	grain     Resolution
	byClick   bool
	block     WindowBlock
	hour, day int64 // Unix seconds
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
// each the sum of the credits' deltas of its key, in the order their keys first appear. The
// columns are made at their final size: a drain batch lands about a million rows.
func creditRows(batches []CreditBatch) *creditColumns {
	type rawRow struct {
		batch, credit, owner int32
		minute, hour, day    int64 // Unix seconds
	}
	n := 0
	for _, b := range batches {
		n += len(b.Credits)
	}
	measures := CreditsFamily.Measures
	raw := make([]rawRow, 0, n)
	owners := map[creditOwner]int32{}
	var ownerOf []creditOwner
	var ownerKeys [][]string // of CreditsFamily.Keys, by owner
	index := make(map[rollupKey]int, 4*n)
	keys := make([]rollupKey, 0, 4*n)
	sums := make([]int64, 0, 4*n*len(measures)) // of measures, by key
	blocks := make([]WindowBlock, 0, len(WindowBlockSizes))
	for bi, b := range batches {
		for ci := range b.Credits {
			cr := &b.Credits[ci]
			o := creditOwner{project: b.ProjectID, model: cr.Model, touches: cr.Touches, entity: cr.Entity, dims: cr.Dims, currency: cr.Currency}
			id, ok := owners[o]
			if !ok {
				id = int32(len(ownerKeys))
				owners[o] = id
				ownerOf, ownerKeys = append(ownerOf, o), append(ownerKeys, o.keys())
			}
			minute, hour, day := Times(cr.Time, b.Zone)
			raw = append(raw, rawRow{batch: int32(bi), credit: int32(ci), owner: id, minute: minute.Unix(), hour: hour.Unix(), day: day.Unix()})
			blocks = appendWindowBlocks(blocks[:0], cr.WindowDays)
			for _, grain := range []Resolution{Hour, Day} {
				k := rollupKey{owner: id, grain: grain, byClick: cr.ByClick, day: day.Unix()}
				if grain == Hour {
					k.hour = hour.Unix()
				}
				for _, blk := range blocks {
					k.block = blk
					i, ok := index[k]
					if !ok {
						i = len(keys)
						index[k] = i
						keys = append(keys, k)
						sums = append(sums, make([]int64, len(measures))...)
					}
					for j, m := range measures {
						sums[i*len(measures)+j] += cr.Values[m]
					}
				}
			}
		}
	}
	c := newCreditColumns(len(raw) + len(keys))
	v := make([]int64, len(measures))
	for _, r := range raw {
		b, o := &batches[r.batch], &ownerOf[r.owner]
		cr := &b.Credits[r.credit]
		for j, m := range measures {
			v[j] = cr.Values[m]
		}
		c.add(Minute, o, cr.ByClick, cr.WindowDays, WindowBlock{}, unix(r.minute), unix(r.hour), unix(r.day), ownerKeys[r.owner], v,
			b.OutboxID)
	}
	for i, k := range keys {
		hour := epoch
		if k.grain == Hour {
			hour = unix(k.hour)
		}
		c.add(k.grain, &ownerOf[k.owner], k.byClick, 0, k.block, epoch, hour, unix(k.day), ownerKeys[k.owner],
			sums[i*len(measures):(i+1)*len(measures)], 0)
	}
	return c
}

// unix is the instant of Unix seconds s, in UTC.
func unix(s int64) time.Time { return time.Unix(s, 0).UTC() }

// keys are o's values of CreditsFamily.Keys, in their order: the entity's, the dimensions', the
// currency.
func (o creditOwner) keys() []string {
	out := o.entity.List()
	for _, v := range o.dims.Values() {
		out = append(out, v.(string))
	}
	return append(out, o.currency)
}

// newCreditColumns are empty columns of room for n rows.
func newCreditColumns(n int) *creditColumns {
	c := &creditColumns{grain: make([]uint8, 0, n), byClick: make([]uint8, 0, n), windowDays: make([]uint8, 0, n),
		windowLo: make([]uint8, 0, n), windowHi: make([]uint8, 0, n), project: make([]string, 0, n), model: make([]string, 0, n),
		touches: make([]string, 0, n), ts: make([]time.Time, 0, n), hour: make([]time.Time, 0, n), day: make([]time.Time, 0, n),
		keys: make([][]string, len(CreditsFamily.Keys)), measures: make([][]int64, len(CreditsFamily.Measures)),
		outbox: make([]uint64, 0, n)}
	for i := range c.keys {
		c.keys[i] = make([]string, 0, n)
	}
	for i := range c.measures {
		c.measures[i] = make([]int64, 0, n)
	}
	return c
}

// add appends a row of owner o: its values of CreditsFamily.Keys (o's) and of
// CreditsFamily.Measures, in order.
func (c *creditColumns) add(grain Resolution, o *creditOwner, byClick bool, windowDays uint8, blk WindowBlock,
	ts, hour, day time.Time, keys []string, values []int64, outbox uint64) {
	click := uint8(0)
	if byClick {
		click = 1
	}
	c.grain, c.byClick = append(c.grain, uint8(grain)), append(c.byClick, click)
	c.windowDays, c.windowLo, c.windowHi = append(c.windowDays, windowDays), append(c.windowLo, blk.Lo), append(c.windowHi, blk.Hi)
	c.project, c.model, c.touches = append(c.project, o.project), append(c.model, o.model), append(c.touches, o.touches)
	c.ts, c.hour, c.day = append(c.ts, ts), append(c.hour, hour), append(c.day, day)
	for i, k := range keys {
		c.keys[i] = append(c.keys[i], k)
	}
	for i, v := range values {
		c.measures[i] = append(c.measures[i], v)
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
