package engine

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// BenchmarkAnswerRows times what the service does per answer once ClickHouse's rows are
// scanned: shaping each row (metrics from sums) and writing it as JSON, for the query benchmark's
// day_30d_campaign (720 rows: 30 days × 24 campaigns, six fields over four measures, converted
// money). go test ./engine -run XXX -bench AnswerRows -benchmem
func BenchmarkAnswerRows(b *testing.B) {
	var in QueryInput
	body := `{"project_id":"prj_1","fields":["spend","impressions","clicks","ctr","cpc","roas"],` +
		`"time":{"start":"2024-03-31","end":"2024-04-29","granularity":"day"},"metadata":{"level":"campaign"}}`
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		b.Fatal(err)
	}
	p, _, err := newPlan(Scope{ProjectID: "prj_1", Currency: "BRL", TimeZone: "America/Sao_Paulo", SubHour: true}, in,
		time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	rows := scannedRows()
	b.ReportAllocs()
	for b.Loop() {
		s := p.scanner()
		out := make([]byte, 0, 256*len(rows))
		for _, r := range rows {
			s.bucket, s.source, s.id, s.name = r.bucket, r.source, r.id, r.name
			*s.money[0], *s.counts[1], *s.counts[2], *s.money[3] = r.spend, r.impressions, r.clicks, r.revenue
			if out, err = p.row(s).AppendJSON(out); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// scannedRow is one row of day_30d_campaign as the service scans it.
type scannedRow struct {
	bucket              time.Time
	source, id, name    string
	spend, revenue      decimal.Decimal // Decimal128(8) micros of the answer's currency
	impressions, clicks int64
}

// scannedRows are day_30d_campaign's rows, made once: what the driver hands over is not timed.
func scannedRows() []scannedRow {
	var rows []scannedRow
	for day := 0; day < 30; day++ {
		for c := 0; c < 24; c++ {
			rows = append(rows, scannedRow{
				bucket:      time.Date(2024, 3, 31+day, 0, 0, 0, 0, time.UTC),
				source:      []string{"alpha_ads", "beta_ads", "gamma_ads"}[c%3],
				id:          fmt.Sprintf("act_90000000000%d_c%d", c%3, c),
				name:        fmt.Sprintf("Campaign %d", c),
				spend:       decimal.New(int64(123_456_789_012_345_678+day*7919+c*104729), -8),
				revenue:     decimal.New(int64(987_654_321_098_765+c*31337), -8),
				impressions: int64(3_452_752 + c*997),
				clicks:      int64(84_099 + day*13),
			})
		}
	}
	return rows
}
