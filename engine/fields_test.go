package engine_test

import (
	"strings"
	"testing"

	"mtk/engine"
	"mtk/internal/apperr"
)

func TestFields(t *testing.T) {
	all, err := engine.Fields("")
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Metrics) != 31 || len(all.Dimensions) != 22 {
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
	if len(beta.Metrics) != 29 {
		t.Errorf("beta_ads: %d metrics", len(beta.Metrics))
	}
	// Traffic and order dimensions list the metrics they serve: no ad-network metric (nor one
	// built on it), and for products no event metric.
	served := map[string][]string{}
	for _, d := range all.Dimensions {
		served[d.Name] = d.Metrics
	}
	want := "tx_revenue tx_count tx_count_total tx_count_pending tx_count_refunded tx_product_costs page_views leads initiate_checkout tx_units aov"
	wantItems := "tx_revenue tx_count tx_count_total tx_count_pending tx_count_refunded tx_product_costs tx_units aov"
	for _, d := range engine.BusinessDimensions {
		w := want
		if d == "product_id" || d == "product_name" {
			w = wantItems
		}
		if got := strings.Join(served[d], " "); got != w {
			t.Errorf("%s serves %q, want %q", d, got, w)
		}
	}
	if served["source"] != nil || len(engine.BusinessDimensions) != 12 {
		t.Errorf("source serves %v; %d business dimensions", served["source"], len(engine.BusinessDimensions))
	}
	if _, err := engine.Fields("delta_ads"); err == nil {
		t.Fatal("unknown source accepted")
	} else if e, _ := apperr.As(err); e.Code != apperr.CodeInvalidSource {
		t.Fatalf("%v", err)
	}
}
