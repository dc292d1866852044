package fires

import "testing"

func TestHoldsKeyword(t *testing.T) {
	for _, c := range []struct {
		text, keyword string
		want          bool
	}{
		{"Quero a Promoção!", "PROMOCAO", true},
		{"PROMOCAO", "Promoção", true},
		{"promoção", "promocao", true},
		{"Olá, AÇAÍ grande", "acai", true},
		{"Straße", "STRASSE", true},
		{"Crème brûlée", "creme brulee", true},
		{"Eu quero", "quero comprar", false},
		{"promo", "promocao", false},
		{"qualquer texto", "", false},
		{"qualquer texto", "   ", false},
	} {
		if got := HoldsKeyword(c.text, c.keyword); got != c.want {
			t.Errorf("HoldsKeyword(%q, %q) = %v, want %v", c.text, c.keyword, got, c.want)
		}
	}
}
