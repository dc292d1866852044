// Package facts owns mtk's fact schema and its writes: the additive measures every fact table
// sums (Specs, the one list from which every column list is derived), the Fact row that sync and
// ingestion produce, where a fact's instant lands (its minute, local hour and local day), and the
// inserts into ClickHouse's landing tables and entities; and the attribution credits of an order's
// journey under every model (credits.go), which credits_raw holds. engine/ reads what is written here;
// adsync/ and ingest/ write through it.
package facts
