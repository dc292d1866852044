package engine_test

import (
	"testing"

	"mtk/engine"
	"mtk/internal/apperr"
)

func TestFields(t *testing.T) {
	all, err := engine.Fields("")
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Metrics) != 30 || len(all.Dimensions) != 10 {
		t.Fatalf("%d metrics, %d dimensions", len(all.Metrics), len(all.Dimensions))
	}
	byName := map[string]engine.Metric{}
	for _, m := range all.Metrics {
		if m.Name == "" || m.Category == "" || m.Unit == "" || len(m.Sources) == 0 {
			t.Errorf("incomplete metric %+v", m)
		}
		byName[m.Name] = m
	}
	for name, want := range map[string]string{"ctr": "clicks / impressions", "cpm": "(spend / impressions) * 1000",
		"profit": "tx_revenue - spend - tx_product_costs", "cta_rate": "clicks / video_views_p75"} {
		if byName[name].Formula != want {
			t.Errorf("%s formula %q, want %q", name, byName[name].Formula, want)
		}
	}
	if byName["cpc"].Unit != engine.UnitMoney || byName["ctr"].Unit != engine.UnitRatio || byName["clicks"].Unit != engine.UnitCount {
		t.Error("units")
	}
	beta, err := engine.Fields("beta_ads")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range beta.Metrics {
		if m.Name == "reach" || m.Name == "frequency" {
			t.Errorf("beta_ads lists %s", m.Name)
		}
	}
	if len(beta.Metrics) != 28 {
		t.Errorf("beta_ads: %d metrics", len(beta.Metrics))
	}
	if _, err := engine.Fields("delta_ads"); err == nil {
		t.Fatal("unknown source accepted")
	} else if e, _ := apperr.As(err); e.Code != apperr.CodeInvalidSource {
		t.Fatalf("%v", err)
	}
}
