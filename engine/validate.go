package engine

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mtk/internal/apperr"
)

// Query limits.
const (
	MaxLimit     = 50000
	DefaultLimit = 10000
)

// Caps on a query body's lists (CONTRACT "Hostile input"). A list past its cap is refused with
// one detail line before any of its items is looked at, so that a body's size bounds the work of
// validating it and the statement it can become. `order` needs no cap of its own: it names each
// field or row key at most once.
const (
	MaxFields        = 50
	MaxFilters       = 20
	MaxFilterValues  = 100
	MaxValueBytes    = 1000
	MaxConnectionIDs = 100
)

// numberPattern is the form of a metric filter value: a plain decimal number.
var numberPattern = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// problems collects one detail line per problem.
type problems []string

func (p *problems) add(format string, a ...any) { *p = append(*p, fmt.Sprintf(format, a...)) }

// Check returns in marked as validated, or Validate's error: the API checks a body before it
// looks the project up (a bad body is 400 whoever's the project), and the engine then takes it
// as checked.
func (in QueryInput) Check() (QueryInput, error) {
	if err := in.Validate(); err != nil {
		return in, err
	}
	in.checked = true
	if b, err := json.Marshal(in); err == nil {
		in.digest = sha256.Sum256(b)
	}
	return in, nil
}

// Validate checks everything that does not depend on the project. It returns nil or an
// *apperr.Error with one detail line per problem, the wrong members first, then the missing
// ones: invalid_source when source is unknown (the message names the valid sources),
// missing_parameter when every problem is a missing member, invalid_parameter otherwise (a
// missing project_id is invalid_parameter, as the spec says).
func (in QueryInput) Validate() *apperr.Error {
	var p, missing problems
	if strings.TrimSpace(in.ProjectID) == "" {
		p.add("project_id: required")
	}
	in.validateFields(&p, &missing)
	badSource := in.Source != "" && !validSource(in.Source)
	if badSource {
		p.add("source: unknown source %q; want one of %s", in.Source, strings.Join(Sources, ", "))
	}
	if n := len(in.ConnectionIDs); n > MaxConnectionIDs {
		p.add("connection_ids: %d ids, at most %d", n, MaxConnectionIDs)
	} else {
		for i, c := range in.ConnectionIDs {
			if strings.TrimSpace(c) == "" {
				p.add("connection_ids[%d]: empty", i)
			}
		}
	}
	in.validateTime(&p, &missing)
	if n := len(in.Filters); n > MaxFilters {
		p.add("filters: %d filters, at most %d", n, MaxFilters)
	} else {
		for i, f := range in.Filters {
			validateFilter(&p, &missing, i, f)
		}
	}
	if len(in.Fields) <= MaxFields { // the order names fields; past the cap they are not read
		in.validateOrder(&p)
	}
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > MaxLimit) {
		p.add("limit: must be between 1 and %d", MaxLimit)
	}
	if in.Offset != nil && *in.Offset < 0 {
		p.add("offset: must be 0 or more")
	}
	if l := in.level(); l != "" && !validLevel(l) {
		p.add("metadata.level: unknown level %q; want one of %s", l, strings.Join(Levels, ", "))
	}
	if c := in.convertTo(); c != "" && !KnownCurrency(c) {
		p.add("metadata.convert_to_currency: unknown currency %q; want a 3-letter ISO 4217 code", c)
	}
	in.validateAttribution(&p)
	in.validateMetadata(&p)
	if len(in.Fields) <= MaxFields && len(in.Filters) <= MaxFilters && len(in.dimensions()) <= len(BusinessDimensions) {
		in.validateFamily(&p)
	}
	switch {
	case badSource:
		return apperr.Validation(apperr.CodeInvalidSource,
			fmt.Sprintf("Unknown source %q. Valid sources: %s.", in.Source, strings.Join(Sources, ", ")), append(p, missing...)...)
	case len(p) > 0:
		return apperr.Invalid("The query is invalid.", append(p, missing...)...)
	case len(missing) > 0:
		return apperr.Missing("The query lacks a required member.", missing...)
	}
	return nil
}

func (in QueryInput) validateFields(p, missing *problems) {
	switch {
	case in.Fields == nil:
		missing.add("fields: required; list at least one metric")
	case len(in.Fields) == 0:
		p.add("fields: at least one metric is required")
	case len(in.Fields) > MaxFields:
		p.add("fields: %d fields, at most %d", len(in.Fields), MaxFields)
		return
	}
	seen := map[string]bool{}
	for i, f := range in.Fields {
		switch {
		case metricsByName[f] == nil:
			p.add("fields[%d]: unknown metric %q", i, f)
		case seen[f]:
			p.add("fields[%d]: duplicate metric %q", i, f)
		}
		seen[f] = true
	}
}

func (in QueryInput) validateTime(p, missing *problems) {
	t := in.Time
	if t == nil {
		return
	}
	if t.Range != "" {
		if t.Start != "" || t.End != "" {
			p.add("time.range: give either range or start and end, not both")
		}
		if _, _, ok := namedDays(t.Range, time.Time{}); !ok {
			p.add("time.range: unknown range %q; want one of %s", t.Range, strings.Join(Ranges, ", "))
		}
	}
	for _, b := range []struct{ name, value string }{{"start", t.Start}, {"end", t.End}} {
		if t.Range != "" {
			break
		}
		if b.value == "" {
			missing.add("time.%s: required", b.name)
		} else if _, _, ok := parseBound(b.value, time.UTC); !ok {
			p.add("time.%s: want YYYY-MM-DD or an ISO 8601 date-time, got %q", b.name, b.value)
		}
	}
	if t.Compare != nil {
		t.Compare.validate(p, missing)
	}
	if _, ok := granularities[t.Granularity]; t.Granularity != "" && !ok {
		p.add("time.granularity: unknown granularity %q; want one of %s", t.Granularity, strings.Join(Granularities, ", "))
	}
}

func validateFilter(p, missing *problems, i int, f Filter) {
	m, d := metricsByName[f.Member], dimensionsByName[f.Member]
	switch {
	case f.Member == "":
		missing.add("filters[%d].member: required", i)
	case m == nil && d == nil:
		p.add("filters[%d].member: unknown member %q", i, f.Member)
	}
	switch {
	case f.Operator == "":
		missing.add("filters[%d].operator: required", i)
		return
	case !validOperator(f.Operator):
		p.add("filters[%d].operator: unknown operator %q; want one of %s", i, f.Operator, strings.Join(Operators, ", "))
		return
	case m != nil && !numberOps[f.Operator]:
		p.add("filters[%d].operator: %q does not apply to metric %q", i, f.Operator, f.Member)
	case d != nil && !stringOps[f.Operator]:
		p.add("filters[%d].operator: %q does not apply to dimension %q", i, f.Operator, f.Member)
	}
	if f.Operator == "set" || f.Operator == "notSet" {
		if len(f.Values) > 0 {
			p.add("filters[%d].values: must be empty for operator %q", i, f.Operator)
		}
		return
	}
	switch n := len(f.Values); {
	case n == 0:
		p.add("filters[%d].values: required for operator %q", i, f.Operator)
	case n > MaxFilterValues:
		p.add("filters[%d].values: %d values, at most %d", i, n, MaxFilterValues)
		return
	}
	for j, v := range f.Values {
		switch {
		case len(v) > MaxValueBytes:
			p.add("filters[%d].values[%d]: %d bytes, at most %d", i, j, len(v), MaxValueBytes)
		case m != nil && !isNumber(v):
			p.add("filters[%d].values[%d]: want a number, got %q", i, j, v)
		}
	}
}

// isNumber reports whether v is a metric filter's value: a plain, finite decimal number.
func isNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil && numberPattern.MatchString(v)
}

// rowKeys are the keys a row carries besides its fields.
func (in QueryInput) rowKeys() []string {
	var keys []string
	if in.granularity() != "" {
		keys = append(keys, "date")
	}
	if l := in.level(); validLevel(l) {
		keys = append(keys, l+"_id", l+"_name", "source")
	}
	if ds := in.dimensions(); len(ds) <= len(BusinessDimensions) {
		keys = append(keys, ds...)
	}
	return keys
}

func (in QueryInput) validateOrder(p *problems) {
	allowed := map[string]bool{}
	for _, f := range in.Fields {
		allowed[f] = true
	}
	for _, k := range in.rowKeys() {
		allowed[k] = true
	}
	if len(in.Order) > len(allowed) {
		p.add("order: %d members, at most %d (each field or row key once)", len(in.Order), len(allowed))
		return
	}
	seen := map[string]bool{}
	for _, k := range in.Order {
		switch {
		case !allowed[k.Field]:
			p.add("order.%s: not a field or key of the rows", k.Field)
		case seen[k.Field]:
			p.add("order.%s: given twice", k.Field)
		}
		seen[k.Field] = true
		if d := strings.ToLower(k.Direction); d != "asc" && d != "desc" {
			p.add("order.%s: want \"asc\" or \"desc\", got %q", k.Field, k.Direction)
		}
	}
}
