package utm

import (
	"encoding/json"
	"testing"
)

func TestExtract(t *testing.T) {
	tests := []struct {
		name     string
		explicit Params
		url      string
		cookies  map[string]string
		want     Params
	}{
		{
			name:     "body wins over url and cookies",
			explicit: Params{Source: "fb", Campaign: "Sale|1"},
			url:      "https://x.com/?utm_source=google&utm_campaign=Other|2",
			cookies:  map[string]string{"utm_source": "tiktok"},
			want:     Params{Source: "fb", Campaign: "Sale|1"},
		},
		{
			name:     "body wins as a whole set: nothing is taken from the url",
			explicit: Params{Term: "shoes"},
			url:      "https://x.com/?utm_campaign=Other|2",
			want:     Params{Term: "shoes"},
		},
		{
			name:     "blank body values do not count",
			explicit: Params{Source: "  ", Campaign: "\t"},
			url:      "https://x.com/p?utm_source=google",
			want:     Params{Source: "google"},
		},
		{
			name:     "body values are url-decoded and trimmed",
			explicit: Params{Campaign: " Summer+Sale%7c123 ", Medium: "50% off|9"},
			want:     Params{Campaign: "Summer Sale|123", Medium: "50% off|9"},
		},
		{
			name: "url query",
			url:  "https://x.com/p?a=1&utm_source=fb&utm_medium=Adset%20A%7C22&utm_campaign=Sale+2024|11&utm_content=Ad|33&utm_term=t#top",
			want: Params{Source: "fb", Medium: "Adset A|22", Campaign: "Sale 2024|11", Content: "Ad|33", Term: "t"},
		},
		{
			name: "url keys without case, first non-empty value of a repeated key",
			url:  "/landing?UTM_Source=&utm_source=fb&Utm_Source=ig&utm_campaign=C|1",
			want: Params{Source: "fb", Campaign: "C|1"},
		},
		{
			name: "malformed escape kept as written",
			url:  "https://x.com/?utm_campaign=100%+off%zz|5",
			want: Params{Campaign: "100% off%zz|5"},
		},
		{
			name: "invalid utf-8 dropped",
			url:  "https://x.com/?utm_campaign=Sale%FF|5",
			want: Params{Campaign: "Sale|5"},
		},
		{
			name: "hash-routed page",
			url:  "https://x.com/#/lp?utm_source=fb&utm_content=Ad|3",
			want: Params{Source: "fb", Content: "Ad|3"},
		},
		{
			name: "main query wins over the fragment's",
			url:  "https://x.com/?utm_source=google#/lp?utm_source=fb",
			want: Params{Source: "google"},
		},
		{
			name:    "url without utm falls back to cookies",
			url:     "https://x.com/?gclid=1",
			cookies: map[string]string{"_mtk_utm": "utm_source=fb&utm_campaign=Sale%7C7"},
			want:    Params{Source: "fb", Campaign: "Sale|7"},
		},
		{
			name:    "_mtk_utm encoded once more",
			cookies: map[string]string{"_mtk_utm": "utm_source%3Dfb%26utm_campaign%3DSale%257C7"},
			want:    Params{Source: "fb", Campaign: "Sale|7"},
		},
		{
			name: "_mtk_utm wins over the utm_* cookies",
			cookies: map[string]string{
				"_mtk_utm":   "utm_source=fb",
				"utm_source": "google", "utm_campaign": "C|1",
			},
			want: Params{Source: "fb"},
		},
		{
			name: "utm_* cookies when _mtk_utm holds nothing",
			cookies: map[string]string{
				"_mtk_utm":   "foo=bar",
				"utm_source": "google", "utm_medium": "Set%20A|2", "utm_campaign": " C|1 ", "utm_content": "Ad+1|3", "utm_term": "x",
				"UTM_SOURCE": "ignored: cookie names are exact",
			},
			want: Params{Source: "google", Medium: "Set A|2", Campaign: "C|1", Content: "Ad 1|3", Term: "x"},
		},
		{
			name: "nothing anywhere",
			url:  "not a url at all ?? %%",
			want: Params{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Extract(tt.explicit, tt.url, tt.cookies); got != tt.want {
				t.Errorf("Extract = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParamsJSON(t *testing.T) {
	var p Params
	body := `{"utm_source":"fb","utm_medium":"M|2","utm_campaign":"C|1","utm_content":"A|3","utm_term":"t"}`
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	want := Params{Source: "fb", Medium: "M|2", Campaign: "C|1", Content: "A|3", Term: "t"}
	if p != want {
		t.Fatalf("decoded %+v, want %+v", p, want)
	}
	out, err := json.Marshal(Params{Source: "fb"})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"utm_source":"fb"}` {
		t.Fatalf("encoded %s", out)
	}
}
