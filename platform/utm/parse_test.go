package utm

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   Params
		want Ref
	}{
		{
			name: "name and id at every level",
			in:   Params{Campaign: "Summer Sale|120", Medium: "Broad|220", Content: "Video 1|320"},
			want: Ref{CampaignName: "Summer Sale", CampaignID: "120", AdsetName: "Broad", AdsetID: "220", AdName: "Video 1", AdID: "320"},
		},
		{
			name: "id after the last pipe",
			in:   Params{Campaign: "A|B|C|99"},
			want: Ref{CampaignName: "A|B|C", CampaignID: "99"},
		},
		{
			name: "spaces around the parts",
			in:   Params{Medium: "  Broad  |  220 "},
			want: Ref{AdsetName: "Broad", AdsetID: "220"},
		},
		{
			name: "bare name",
			in:   Params{Content: "Video 1"},
			want: Ref{AdName: "Video 1"},
		},
		{
			name: "empty id leaves a bare name",
			in:   Params{Campaign: "Sale|"},
			want: Ref{CampaignName: "Sale"},
		},
		{
			name: "id only",
			in:   Params{Campaign: "|120"},
			want: Ref{CampaignID: "120"},
		},
		{
			name: "source and term play no part",
			in:   Params{Source: "fb|1", Term: "x|2"},
			want: Ref{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.in); got != tt.want {
				t.Errorf("Parse = %+v, want %+v", got, tt.want)
			}
		})
	}
}
