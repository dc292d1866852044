package engine

import (
	"strings"
	"time"
)

// currencies are the ISO 4217 codes the engine converts between (given fx_rates for the pair).
var currencies = map[string]bool{}

func init() {
	for _, c := range []string{
		"ARS", "AUD", "BRL", "CAD", "CHF", "CLP", "CNY", "COP", "CZK", "DKK", "EUR", "GBP", "HKD",
		"HUF", "IDR", "ILS", "INR", "JPY", "KRW", "MXN", "MYR", "NOK", "NZD", "PEN", "PHP", "PLN",
		"RON", "SEK", "SGD", "THB", "TRY", "TWD", "UAH", "USD", "UYU", "ZAR",
	} {
		currencies[c] = true
	}
}

// KnownCurrency reports whether code is a currency the engine knows.
func KnownCurrency(code string) bool { return currencies[code] }

// convertedSum is the SQL of one money measure of the first aggregation converted into the
// answer's currency at the rate of its day: the target currency is bound once per use. An amount
// whose rate is missing adds 0 here; fxNull says the sum is unknown.
func convertedSum(m string, target string) fragment {
	return expr("sum(toDecimal128(s_"+m+", 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS "+m, target)
}

// unconvertedSum is convertedSum for a statement that assumes one currency (Attempt.OneCurrency):
// the same type (Decimal128 of scale 8), so that both statements' answers read and print alike.
func unconvertedSum(m string) string {
	return "sum(toDecimal128(s_" + m + ", 0) * toDecimal64(1, 8)) AS " + m
}

// fxNull is the flag column (fxNullColumn) that says a money measure of the row is unknown: a
// non-zero amount of it lacked its day's rate. The answer shows it null (never 0, never left
// unconverted), and so do the metrics built on it, in values, filters and order (Metric.sql).
// A row of the gap-filling series that no fact reached gets 0, as its sums do.
func fxNull(m, target string) fragment {
	return expr("toUInt8(countIf(currency != ? AND has_rate = 0 AND s_"+m+" != 0) > 0) AS "+fxNullColumn(m), target)
}

// noFxNull is fxNull for the statements that assume it is 0 everywhere: the one-currency
// statement, which converts nothing, and the lean one, which Query replaces when a rate is
// missing.
func noFxNull(m string) string { return "toUInt8(0) AS " + fxNullColumn(m) }

func fxNullColumn(m string) string { return "fx_null_" + m }

// foreignMoney is fxMissing for a statement that assumes one currency: the currencies of the
// row's money other than target, which void the assumption.
func foreignMoney(target string, money []string) fragment {
	return expr("groupUniqArrayIf(toString(currency), currency != ? AND "+anyNonzero(money)+") AS fx_missing", target)
}

// rateless is fxMissing for the lean statement (Attempt.Lean): the currencies of the row's money
// that lack a rate on some day, without the days (Query, which replaces it then, lists them),
// one aggregate over short strings for every flag of the converting statement.
func rateless(target string, money []string) fragment {
	return expr("groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND "+anyNonzero(money)+") AS fx_missing", target)
}

// anyNonzero is true for a first-aggregation row where one of the money measures is not 0.
func anyNonzero(money []string) string {
	nonzero := make([]string, len(money))
	for i, m := range money {
		nonzero[i] = "s_" + m + " != 0"
	}
	return "(" + strings.Join(nonzero, " OR ") + ")"
}

// fxJoin is the rates subquery: one rate per (day, currency) into target, latest version. It
// joins the first aggregation's rows, never the fact table's: on a cluster the rates are
// sharded like any table and read whole where the statement started (schema/cluster.go).
func fxJoin(target, firstDay, afterDay string) fragment {
	return expr("ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate "+
		"FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency)",
		target, firstDay, afterDay)
}

// fxMissing lists the currencies of the row's money (of the measures named) that had no rate,
// with the day, as "BRL 2024-03-01".
func fxMissing(target string, money []string) fragment {
	return expr("groupUniqArrayIf(concat(toString(currency), ' ', toString(day)), currency != ? AND has_rate = 0 AND "+
		anyNonzero(money)+") AS fx_missing", target)
}

// addMissing records an entry of fx_missing: "BRL 2024-03-01" from the converting statement, or a
// bare currency from the one-currency statement (which lists the currencies that void it).
func addMissing(missing map[string]map[time.Time]bool, entry string) {
	c, day, _ := strings.Cut(entry, " ")
	if missing[c] == nil {
		missing[c] = map[time.Time]bool{}
	}
	if d, err := time.Parse(time.DateOnly, day); err == nil {
		missing[c][d] = true
	}
}
