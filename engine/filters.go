package engine

import (
	"strconv"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Operators of a filter.
var Operators = []string{"equals", "notEquals", "contains", "notContains", "startsWith", "endsWith",
	"gt", "gte", "lt", "lte", "set", "notSet"}

// negated maps each negative string operator to the positive one it negates: a negative
// operator with several values matches rows that match none of them.
var negated = map[string]string{"notEquals": "equals", "notContains": "contains"}

var stringOps = map[string]bool{"equals": true, "notEquals": true, "contains": true, "notContains": true,
	"startsWith": true, "endsWith": true, "set": true, "notSet": true}

var numberOps = map[string]bool{"equals": true, "notEquals": true, "gt": true, "gte": true, "lt": true,
	"lte": true, "set": true, "notSet": true}

var comparisons = map[string]string{"equals": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

func validOperator(op string) bool { return stringOps[op] || numberOps[op] }

func stringsToAny(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// stringMatch is the positive condition of op over the string expression col, values OR-ed.
func stringMatch(col, op string, values []string) fragment {
	switch op {
	case "equals":
		return expr(col+" IN ?", clickhouse.GroupSet{Value: stringsToAny(values)})
	case "set":
		return expr(col + " != ''")
	}
	parts := make([]fragment, len(values))
	for i, v := range values {
		switch op {
		case "contains":
			parts[i] = expr("positionCaseInsensitiveUTF8("+col+", ?) > 0", v)
		case "startsWith":
			parts[i] = expr("startsWith(lowerUTF8("+col+"), lowerUTF8(?))", v)
		case "endsWith":
			parts[i] = expr("endsWith(lowerUTF8("+col+"), lowerUTF8(?))", v)
		}
	}
	return orJoin(parts)
}

func orJoin(parts []fragment) fragment {
	if len(parts) == 1 {
		return parts[0]
	}
	return expr("(?)", join(" OR ", parts...))
}

// positive splits op into the positive operator and whether the filter negates it (notSet is
// the negation of set).
func positive(op string) (string, bool) {
	if p, ok := negated[op]; ok {
		return p, true
	}
	if op == "notSet" {
		return "set", true
	}
	return op, false
}

// dimensionFilter is the WHERE condition of a dimension filter. A name filter matches the
// level's ids by their latest name, and an id without an entity (or no id) has the name ”: when
// the positive condition matches ”, the filter keeps every id except those whose name fails it.
func dimensionFilter(projectID string, d *Dimension, f Filter) fragment {
	op, neg := positive(f.Operator)
	if d.nameLevel == "" {
		cond := stringMatch(d.column, op, f.Values)
		if neg {
			return expr("NOT (?)", cond)
		}
		return cond
	}
	pred := stringMatch("argMax(name, version)", op, f.Values)
	if matchesEmpty(op, f.Values) {
		pred, neg = expr("NOT (?)", pred), !neg
	}
	in := " IN "
	if neg {
		in = " NOT IN "
	}
	return expr(d.column+in+"(SELECT entity_id FROM entities WHERE project_id = ? AND level = '"+d.nameLevel+
		"' GROUP BY entity_id HAVING ?)", projectID, pred)
}

// matchesEmpty reports whether the positive operator op with values matches the name ”.
func matchesEmpty(op string, values []string) bool {
	if op == "set" {
		return false
	}
	for _, v := range values {
		if v == "" {
			return true
		}
	}
	return false
}

// metricFilter is the condition of a metric filter on the aggregated row (values already
// checked to be numbers).
func metricFilter(m *Metric, f Filter) fragment {
	switch f.Operator {
	case "set":
		return expr("isNotNull(" + m.sql + ")")
	case "notSet":
		return expr("isNull(" + m.sql + ")")
	}
	op, neg := positive(f.Operator)
	parts := make([]fragment, len(f.Values))
	for i, v := range f.Values {
		n, _ := strconv.ParseFloat(v, 64)
		parts[i] = expr(m.sql+" "+comparisons[op]+" ?", n)
	}
	if neg { // a null (ratio over 0) matches no comparison, negated or not
		return expr("(isNotNull("+m.sql+") AND NOT (?))", join(" OR ", parts...))
	}
	return orJoin(parts)
}
