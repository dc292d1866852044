package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layers place every package (by its import path under mtk/, longest prefix first) in a layer:
// a package imports only packages of its own layer or lower ones. The services (layer 2) are
// families that do not import one another: the engine reads facts (and answers, its one
// caller, caches what it reads), sync and ingestion write them, each on its own. Layer 3 serves
// and measures them: api over the narrow interfaces of its Deps, internal/metrics. Layer 4,
// internal/wire, builds them once and fills api.Deps; the commands, tests and benchmarks above
// it start it.
var layers = []struct {
	prefix string
	layer  int
	family string // services only
}{
	{"internal/apitest", 5, ""}, {"internal/testenv", 5, ""}, {"internal/browsertest", 5, ""}, {"internal/wire", 4, ""},
	{"internal/metrics", 3, ""}, {"internal/adsim", 0, ""}, {"internal/", 0, ""},
	{"cmd/", 5, ""}, {"benchmarks/", 5, ""},
	{"api", 3, ""},
	{"engine/enginetest", 5, ""}, {"engine", 2, "engine"}, {"answers", 2, "engine"}, {"ingest", 2, "ingest"}, {"adsync", 2, "adsync"},
	{"tag", 2, "tag"},
	{"platform/utm", 0, ""}, {"platform/marker", 0, ""}, {"platform", 1, ""},
	{"facts", 0, ""}, {"schema", 0, ""}, {"client", 0, ""},
}

func placeOf(t *testing.T, pkg string) (int, string) {
	t.Helper()
	for _, l := range layers {
		if pkg == l.prefix || strings.HasPrefix(pkg, strings.TrimSuffix(l.prefix, "/")+"/") {
			return l.layer, l.family
		}
	}
	t.Fatalf("package mtk/%s has no layer: add it to layers", pkg)
	return 0, ""
}

func TestImportsPointOneWay(t *testing.T) {
	list := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	list.Dir = "../.." // the module's root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], "mtk/")
		layer, family := placeOf(t, pkg)
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, "mtk/")
			if !ok {
				continue
			}
			depLayer, depFamily := placeOf(t, dep)
			switch {
			case depLayer > layer:
				t.Errorf("%s (layer %d) imports %s (layer %d)", pkg, layer, dep, depLayer)
			case family != "" && depFamily != "" && family != depFamily:
				t.Errorf("service %s imports another service's %s", pkg, dep)
			}
		}
	}
}

// api is built from the narrow interfaces of api.Deps, never from the wiring: the HTTP layer's
// dependencies are what its handlers call, so a change of how mtk is put together (internal/wire)
// or of what it measures (internal/metrics, behind api.Metrics) rebuilds and retests no handler.
// The layers keep api from importing internal/wire directly; this keeps it out of api's whole
// closure, its subpackages' too.
func TestAPIDependsOnNoWiring(t *testing.T) {
	list := exec.Command("go", "list", "-deps", "./api/...")
	list.Dir = "../.." // the module's root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "mtk/platform") {
		t.Fatal("go list -deps ./api/... lists no mtk/platform: the scan saw nothing")
	}
	for _, wiring := range []string{"mtk/internal/wire", "mtk/internal/metrics"} {
		if slices.Contains(deps, wiring) {
			t.Errorf("api depends on %s: take what it needs as an interface of api.Deps", wiring)
		}
	}
}
