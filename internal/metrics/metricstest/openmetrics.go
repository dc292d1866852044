package metricstest

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// OpenMetrics is an exposition in the OpenMetrics 1.0 text format, as ReadOpenMetrics found it.
// No parser of the format is a dependency of mtk (prometheus/common reads only Prometheus' own
// text format), so ReadOpenMetrics checks the specification's rules itself.
type OpenMetrics struct {
	// Types is each metric family's type, by the family's name.
	Types   map[string]string
	samples []omSample
}

type omSample struct {
	name   string
	labels map[string]string
	value  float64
}

// omSuffixes are the sample names each family type allows, as suffixes of the family's name.
var omSuffixes = map[string][]string{
	"counter":        {"_total", "_created"},
	"gauge":          {""},
	"histogram":      {"_bucket", "_count", "_sum", "_created"},
	"gaugehistogram": {"_bucket", "_gcount", "_gsum"},
	"summary":        {"", "_count", "_sum", "_created"},
	"info":           {"_info"},
	"stateset":       {""},
	"unknown":        {""},
}

var (
	omName   = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)
	omLabel  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*`)
	omNumber = regexp.MustCompile(`^(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]Inf|NaN)$`)
)

// omFamily is the family whose lines are being read.
type omFamily struct {
	name, typ         string
	typed, help, unit bool               // its TYPE, HELP, UNIT line was read
	sampled           bool               // a sample was read: no more metadata
	infBuckets        map[string]float64 // histograms: the +Inf bucket of each label set
	counts            map[string]float64 // histograms: _count of each label set
}

// ReadOpenMetrics reads an OpenMetrics 1.0 text exposition and checks it: UTF-8 lines ending in
// one "# EOF"; HELP, TYPE and UNIT at most once per family and before its samples; every
// family's lines together and its name unique; sample names that the family's type allows (a
// counter's family is named without _total, its samples with it), each sample name in one family
// only; well-formed labels and numbers; counters neither negative nor NaN; every histogram's
// +Inf bucket present and equal to its _count. Exemplars are not expected.
func ReadOpenMetrics(body string) (OpenMetrics, error) {
	om := OpenMetrics{Types: map[string]string{}}
	if !utf8.ValidString(body) {
		return om, fmt.Errorf("not UTF-8")
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if lines[len(lines)-1] != "# EOF" {
		return om, fmt.Errorf("the last line is %q, not # EOF", lines[len(lines)-1])
	}
	seen := map[string]bool{}           // family names
	sampleFamily := map[string]string{} // sample name → its family
	var cur *omFamily
	closeFamily := func() error {
		if cur == nil {
			return nil
		}
		for k, n := range cur.counts {
			if inf, ok := cur.infBuckets[k]; !ok || inf != n {
				return fmt.Errorf("histogram %s{%s}: +Inf bucket %v (present %v), _count %v", cur.name, k, inf, ok, n)
			}
		}
		return nil
	}
	open := func(name string) error { // a family without a TYPE line yet: unknown
		if err := closeFamily(); err != nil {
			return err
		}
		if seen[name] {
			return fmt.Errorf("family %s appears twice, or its lines are not together", name)
		}
		seen[name] = true
		om.Types[name] = "unknown"
		cur = &omFamily{name: name, typ: "unknown", infBuckets: map[string]float64{}, counts: map[string]float64{}}
		return nil
	}
	for i, line := range lines[:len(lines)-1] {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d %q: %s", i+1, line, fmt.Sprintf(format, args...))
		}
		if line == "" {
			return om, fail("empty line")
		}
		if strings.HasPrefix(line, "#") {
			parts := strings.SplitN(line, " ", 4)
			if len(parts) < 3 || parts[0] != "#" || omName.FindString(parts[2]) != parts[2] {
				return om, fail("not a HELP, TYPE or UNIT line")
			}
			kind, name := parts[1], parts[2]
			arg := ""
			if len(parts) == 4 {
				arg = parts[3]
			}
			if cur == nil || cur.name != name || cur.sampled {
				if err := open(name); err != nil {
					return om, fail("%v", err)
				}
			}
			switch kind {
			case "TYPE":
				if _, ok := omSuffixes[arg]; !ok || cur.typed {
					return om, fail("unknown type, or a second TYPE")
				}
				if arg == "counter" && strings.HasSuffix(name, "_total") {
					return om, fail("a counter's family is named without _total")
				}
				cur.typ, cur.typed, om.Types[name] = arg, true, arg
			case "HELP":
				if cur.help {
					return om, fail("a second HELP")
				}
				cur.help = true
			case "UNIT":
				if cur.unit || arg != "" && !strings.HasSuffix(name, "_"+arg) {
					return om, fail("a second UNIT, or a family name that does not end in its unit")
				}
				cur.unit = true
			default:
				return om, fail("not a HELP, TYPE or UNIT line")
			}
			continue
		}
		s, err := parseOMSample(line)
		if err != nil {
			return om, fail("%v", err)
		}
		if cur == nil || !cur.owns(s.name) {
			if err := open(s.name); err != nil {
				return om, fail("%v", err)
			}
		}
		cur.sampled = true
		if f, ok := sampleFamily[s.name]; ok && f != cur.name {
			return om, fail("sample name of family %s too", f)
		}
		sampleFamily[s.name] = cur.name
		switch typ := cur.typ; {
		case typ == "counter" && strings.HasSuffix(s.name, "_total") && (s.value < 0 || math.IsNaN(s.value)):
			return om, fail("a counter must be neither negative nor NaN")
		case typ == "histogram" && strings.HasSuffix(s.name, "_bucket"):
			le, ok := s.labels["le"]
			if !ok {
				return om, fail("a bucket without le")
			}
			if le == "+Inf" {
				cur.infBuckets[labelKey(s.labels)] = s.value
			}
		case typ == "histogram" && strings.HasSuffix(s.name, "_count"):
			cur.counts[labelKey(s.labels)] = s.value
		}
		om.samples = append(om.samples, s)
	}
	return om, closeFamily()
}

// owns reports whether a sample named name belongs to the family.
func (f *omFamily) owns(name string) bool {
	for _, suffix := range omSuffixes[f.typ] {
		if name == f.name+suffix {
			return true
		}
	}
	return false
}

// labelKey is a label set without le, in a stable order.
func labelKey(labels map[string]string) string {
	var keys []string
	for k, v := range labels {
		if k != "le" {
			keys = append(keys, k+"="+strconv.Quote(v))
		}
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// parseOMSample reads `name{label="value",...} number [timestamp]`.
func parseOMSample(line string) (omSample, error) {
	s := omSample{name: omName.FindString(line), labels: map[string]string{}}
	rest := line[len(s.name):]
	if s.name == "" {
		return s, fmt.Errorf("no metric name")
	}
	if strings.HasPrefix(rest, "{") {
		rest = rest[1:]
		for !strings.HasPrefix(rest, "}") {
			if len(s.labels) > 0 {
				if !strings.HasPrefix(rest, ",") {
					return s, fmt.Errorf("labels not separated by a comma")
				}
				rest = rest[1:]
			}
			name := omLabel.FindString(rest)
			rest = rest[len(name):]
			if name == "" || !strings.HasPrefix(rest, `="`) {
				return s, fmt.Errorf("a label is not name=\"value\"")
			}
			value, after, err := unquoteOM(rest[1:])
			if err != nil {
				return s, err
			}
			if _, dup := s.labels[name]; dup {
				return s, fmt.Errorf("label %s twice", name)
			}
			s.labels[name], rest = value, after
		}
		rest = rest[1:]
	}
	fields := strings.Split(rest, " ")
	if len(fields) < 2 || len(fields) > 3 || fields[0] != "" || slices.Contains(fields[1:], "") {
		return s, fmt.Errorf("not `name labels value [timestamp]` separated by single spaces")
	}
	for _, n := range fields[1:] {
		if !omNumber.MatchString(n) {
			return s, fmt.Errorf("%q is not a number", n)
		}
	}
	v, err := strconv.ParseFloat(fields[1], 64)
	if err != nil {
		return s, err
	}
	s.value = v
	return s, nil
}

// unquoteOM reads a quoted label value at the start of s (escapes: \\, \" and \n only) and
// returns it with what follows the closing quote.
func unquoteOM(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			i++
			switch {
			case i < len(s) && s[i] == 'n':
				b.WriteByte('\n')
			case i < len(s) && (s[i] == '\\' || s[i] == '"'):
				b.WriteByte(s[i])
			default:
				return "", "", fmt.Errorf("a label value with an escape other than \\\\, \\\" or \\n")
			}
		case '\n':
			return "", "", fmt.Errorf("a raw line break in a label value")
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("an unterminated label value")
}

// CheckOpenMetrics is ReadOpenMetrics that fails the test on a broken exposition.
func CheckOpenMetrics(t testing.TB, body string) OpenMetrics {
	t.Helper()
	om, err := ReadOpenMetrics(body)
	if err != nil {
		t.Fatalf("OpenMetrics exposition: %v", err)
	}
	return om
}

// Value is the value of the first sample named name whose labels include the name, value pairs
// given; ok is false when none matches.
func (om OpenMetrics) Value(name string, labels ...string) (v float64, ok bool) {
	for _, s := range om.samples {
		if s.name != name {
			continue
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			match = match && s.labels[labels[i]] == labels[i+1]
		}
		if match {
			return s.value, true
		}
	}
	return 0, false
}
