package capi

import (
	"strings"
	"testing"

	"mtk/internal/testenv"
)

func TestNormalizers(t *testing.T) {
	tests := []struct {
		field string
		norm  func(string) string
		in    string
		want  string
	}{
		{"em", normEmail, "  John_Smith@Gmail.com ", "john_smith@gmail.com"},
		{"em", normEmail, "ÉLODIE@exemple.fr", "élodie@exemple.fr"},
		{"em", normEmail, "no-at-sign", ""},
		{"em", normEmail, "@example.com", ""},
		{"em", normEmail, "a@", ""},
		{"em", normEmail, "a@b@c.com", ""},
		{"em", normEmail, "john smith@example.com", ""},

		{"ph", normPhone, "+1 (650) 555-1212", "16505551212"},
		{"ph", normPhone, "1-650-555-1212", "16505551212"},
		{"ph", normPhone, "+55 11 98888-7777", "5511988887777"},
		{"ph", normPhone, "0055 11 98888-7777", "5511988887777"},
		{"ph", normPhone, "+44 (0)20 7946 0958", "442079460958"},
		{"ph", normPhone, "011 98888-7777", "11988887777"},
		{"ph", normPhone, "tel: ext", ""},
		{"ph", normPhone, "000", ""},

		{"fn", normName, "Mary", "mary"},
		{"fn", normName, " Valéry ", "valéry"},
		{"fn", normName, "정", "정"},
		{"fn", normName, "Mary-Ann", "maryann"},
		{"ln", normName, "O'Brien", "obrien"},
		{"ln", normName, "  van   der  Berg. ", "van der berg"},
		{"ln", normName, "Smith Jr. 3rd", "smith jr rd"},
		{"ln", normName, "- ' .", ""},

		{"ct", normCity, "Menlo Park", "menlopark"},
		{"ct", normCity, "São Paulo", "sãopaulo"},
		{"ct", normCity, "St. Louis 2", "stlouis"},
	}
	for _, tt := range tests {
		if got := tt.norm(tt.in); got != tt.want {
			t.Errorf("%s(%q) = %q, want %q", tt.field, tt.in, got, tt.want)
		}
	}
}

func TestNormState(t *testing.T) {
	tests := []struct{ in, country, want string }{
		{"California", "us", "ca"},
		{"CA", "us", "ca"},
		{"new york", "", "ny"},
		{"District of Columbia", "us", "dc"},
		{"Georgia", "ge", "georgia"},
		{"São Paulo", "br", "sãopaulo"},
		{"SP", "br", "sp"},
	}
	for _, tt := range tests {
		if got := normState(tt.in, tt.country); got != tt.want {
			t.Errorf("normState(%q, %q) = %q, want %q", tt.in, tt.country, got, tt.want)
		}
	}
}

func TestNormZip(t *testing.T) {
	tests := []struct{ in, country, want string }{
		{"94025", "us", "94025"},
		{"94025-1234", "us", "94025"},
		{"94025 1234", "us", "94025"},
		{"94025-1234", "", "94025"},
		{"01310-100", "", "01310100"},
		{"01310-100", "br", "01310100"},
		{"SW1A 1AA", "gb", "sw1a1"},
		{"M1 1AE", "gb", "m11"},
		{"sw1a1", "gb", "sw1a1"},
		{"H3Z 2Y7", "ca", "h3z2y7"},
		{" - ", "us", ""},
	}
	for _, tt := range tests {
		if got := normZip(tt.in, tt.country); got != tt.want {
			t.Errorf("normZip(%q, %q) = %q, want %q", tt.in, tt.country, got, tt.want)
		}
	}
}

func TestNormCountry(t *testing.T) {
	tests := []struct{ in, want string }{
		{"US", "us"},
		{" br ", "br"},
		{"U.S.", "us"},
		{"UK", "gb"},
		{"Brazil", ""},
		{"xx", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := normCountry(tt.in); got != tt.want {
			t.Errorf("normCountry(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHashVectors pins digests verified with `printf '%s' <normalized> | sha256sum`; they are also
// the examples of Meta's customer information parameters page.
func TestHashVectors(t *testing.T) {
	tests := []struct {
		in   string
		norm func(string) string
		want string
	}{
		{"John_Smith@gmail.com", normEmail, "62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f"},
		{"+1 (650) 555-1212", normPhone, "e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176"},
		{"Mary", normName, "6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec"},
		{"정", normName, "8fa8cd9c440be61d0151429310034083132b35975c4bea67fdd74158eb51db14"},
		{"Valéry", normName, "08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c"},
	}
	for _, tt := range tests {
		got := hashed(tt.in, tt.norm)
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("hashed(%q) = %v, want [%s]", tt.in, got, tt.want)
		}
	}
}

func TestHashed(t *testing.T) {
	digest := testenv.SHA256("john_smith@gmail.com")
	tests := []struct {
		name string
		in   string
		norm func(string) string
		want []string
	}{
		{"normalized then hashed", " JOHN_SMITH@gmail.com", normEmail, []string{testenv.SHA256("john_smith@gmail.com")}},
		{"already hashed passes through", digest, normEmail, []string{digest}},
		{"already hashed in upper case is lowercased", " " + strings.ToUpper(digest) + " ", normPhone, []string{digest}},
		{"63 hex digits are a value, not a digest", digest[:63], normExternalID, []string{testenv.SHA256(digest[:63])}},
		{"invalid utf-8 dropped before normalizing", "Jos\xffé", normName, []string{testenv.SHA256("josé")}},
		{"nothing left", "  ", normExternalID, nil},
		{"external id keeps case", " CRM-42 ", normExternalID, []string{testenv.SHA256("CRM-42")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hashed(tt.in, tt.norm)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || len(got) != len(tt.want) {
				t.Errorf("hashed(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
