package engine

import "strings"

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
// answer's currency at the rate of its day: the target currency is bound twice per use.
func convertedSum(m string, target string, args *[]any) string {
	*args = append(*args, target)
	return "sum(toDecimal128(s_" + m + ", 0) * if(currency = ?, toDecimal64(1, 8), rate)) AS " + m
}

// unconvertedSum is convertedSum for a statement that assumes one currency (Attempt.OneCurrency):
// the same type (Decimal128 of scale 8), so that both statements' answers read and print alike.
func unconvertedSum(m string) string {
	return "sum(toDecimal128(s_" + m + ", 0) * toDecimal64(1, 8)) AS " + m
}

// foreignMoney is fxMissing for a statement that assumes one currency: the currencies of the
// row's money other than target, which void the assumption.
func foreignMoney(target string, money []string, args *[]any) string {
	*args = append(*args, target)
	return "groupUniqArrayIf(toString(currency), currency != ? AND " + anyNonzero(money) + ") AS fx_missing"
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
func fxJoin(target, firstDay, afterDay string, args *[]any) string {
	*args = append(*args, target, firstDay, afterDay)
	return "ANY LEFT JOIN (SELECT day, base AS currency, argMax(rate, version) AS rate, toUInt8(1) AS has_rate " +
		"FROM fx_rates WHERE quote = ? AND day >= toDate(?) AND day < toDate(?) GROUP BY day, base) AS rates USING (day, currency)"
}

// fxMissing lists the currencies of the row's money (of the measures named) that had no rate on
// their day.
func fxMissing(target string, money []string, args *[]any) string {
	*args = append(*args, target)
	return "groupUniqArrayIf(toString(currency), currency != ? AND has_rate = 0 AND " + anyNonzero(money) + ") AS fx_missing"
}
