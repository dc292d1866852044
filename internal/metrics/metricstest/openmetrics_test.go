package metricstest

import (
	"strings"
	"testing"
)

// The checker accepts a valid exposition and refuses each broken rule.
func TestReadOpenMetrics(t *testing.T) {
	const valid = `# HELP req Requests.
# TYPE req counter
req_total{route="/a",status="200"} 3
req_total{route="/b \"q\"\\n",status="500"} 0
# TYPE lat_seconds histogram
# UNIT lat_seconds seconds
lat_seconds_bucket{le="0.1"} 1
lat_seconds_bucket{le="+Inf"} 2
lat_seconds_count 2
lat_seconds_sum 0.3
# TYPE up gauge
up 1.0
untyped_thing NaN 1700000000
# EOF
`
	om, err := ReadOpenMetrics(valid)
	if err != nil {
		t.Fatal(err)
	}
	if om.Types["req"] != "counter" || om.Types["lat_seconds"] != "histogram" || om.Types["untyped_thing"] != "unknown" {
		t.Fatalf("types %v", om.Types)
	}
	if v, ok := om.Value("req_total", "route", `/b "q"\n`); !ok || v != 0 {
		t.Fatalf("escaped label: %v %v", v, ok)
	}
	for _, c := range []struct{ name, body, want string }{
		{"no EOF", "# TYPE up gauge\nup 1\n", "not # EOF"},
		{"after EOF", "# EOF\nup 1\n# EOF\n", "not a HELP"},
		{"empty line", "up 1\n\n# EOF\n", "empty line"},
		{"counter family named _total", "# TYPE req_total counter\nreq_total 1\n# EOF\n", "without _total"},
		{"counter sample without _total", "# TYPE req counter\nreq 1\n# EOF\n", "appears twice"},
		{"gauge and counter of one family name", "# TYPE mem gauge\nmem 1\n# TYPE mem counter\nmem_total 2\n# EOF\n", "appears twice"},
		{"interleaved", "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n# EOF\n", "appears twice"},
		{"metadata after samples", "# TYPE a gauge\na 1\n# HELP a A.\n# EOF\n", "appears twice"},
		{"second TYPE", "# TYPE a gauge\n# TYPE a gauge\na 1\n# EOF\n", "second TYPE"},
		{"sample name of two families", "# TYPE a counter\na_total 1\n# TYPE a_total gauge\na_total 2\n# EOF\n", "family a too"},
		{"negative counter", "# TYPE a counter\na_total -1\n# EOF\n", "negative"},
		{"histogram without +Inf", "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\nh_sum 1\n# EOF\n", "+Inf bucket"},
		{"bad number", "up 1,5\n# EOF\n", "not a number"},
		{"lower-case inf", "up inf\n# EOF\n", "not a number"},
		{"two spaces", "up  1\n# EOF\n", "single spaces"},
		{"bad escape", "up{a=\"\\t\"} 1\n# EOF\n", "escape"},
		{"trailing comma", "up{a=\"1\",} 1\n# EOF\n", "name=\"value\""},
		{"unknown comment", "# hello\nup 1\n# EOF\n", "not a HELP"},
		{"unit not in the name", "# TYPE a gauge\n# UNIT a seconds\na 1\n# EOF\n", "unit"},
	} {
		if _, err := ReadOpenMetrics(c.body); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
