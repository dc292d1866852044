package tag_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mtk/platform"
	"mtk/tag"
)

func TestInstallLine(t *testing.T) {
	got := tag.InstallLine("https://mtk.example.com/", "MTK-7F3K9Q")
	if want := `<script async src="https://mtk.example.com/t/MTK-7F3K9Q.js"></script>`; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// TestCompile: the script's configuration holds the client-side triggers only, each with its
// conditions as rows and an RE2 expression's (?i) as the RegExp's i flag.
func TestCompile(t *testing.T) {
	code := "MTK-7F3K9Q"
	c := platform.Container{ID: "ctr_1", TrackingCode: &code, Metadata: platform.ContainerMetadata{LeadKey: "_mtk_lead", RequireConsent: true}}
	triggers := []platform.Trigger{
		{ID: "trg_1", Config: platform.TriggerConfig{Name: "product", Alpha: platform.AlphaEvent{Name: "ViewContent"},
			Trigger: platform.TriggerRule{Type: platform.TriggerPageView, Fire: platform.FireOncePerPage, Conditions: []platform.Condition{
				{Variable: "page_path", Operator: "matches", Value: `(?i)^/product/\d+`}, {Variable: "utm_source", Operator: "equals", Value: "alpha"}}}}},
		{ID: "trg_2", Config: platform.TriggerConfig{Name: "approved", Alpha: platform.AlphaEvent{Name: "Purchase"},
			Trigger: platform.TriggerRule{Type: platform.TriggerCheckoutApproved}}},
	}
	cfg, err := json.Marshal(tag.Compile(c, triggers))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"key":"_mtk_lead","consent":true,"triggers":[{"id":"trg_1","type":"page_view","name":"product",` +
		`"alpha":{"name":"ViewContent","track_custom":false},"conditions":[["page_path","matches","^/product/\\d+","i"],` +
		`["utm_source","equals","alpha"]],"fire":"once_per_page"}]}`
	if string(cfg) != want {
		t.Fatalf("%s\nwant %s", cfg, want)
	}
	sc, err := tag.Build(tag.Compile(c, triggers))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(sc.Body), "})("+want+");\n") || tag.Ref(c) != code {
		t.Fatalf("script ends %q", sc.Body[len(sc.Body)-80:])
	}
}
