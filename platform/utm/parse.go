package utm

import "strings"

// Ref is what the naming convention says about the ad an event came from. A level may have a
// name, an id, both or neither.
type Ref struct {
	CampaignName, CampaignID string
	AdsetName, AdsetID       string
	AdName, AdID             string
}

// Parse splits utm_campaign, utm_medium and utm_content into name and id at their last '|'.
// p is expected to come from Extract (decoded and trimmed); Parse trims each part again.
func Parse(p Params) Ref {
	var r Ref
	r.CampaignName, r.CampaignID = split(p.Campaign)
	r.AdsetName, r.AdsetID = split(p.Medium)
	r.AdName, r.AdID = split(p.Content)
	return r
}

// split reads "name|id"; the id follows the last '|'. An empty id leaves a bare name.
func split(v string) (name, id string) {
	i := strings.LastIndexByte(v, '|')
	if i < 0 {
		return strings.TrimSpace(v), ""
	}
	return strings.TrimSpace(v[:i]), strings.TrimSpace(v[i+1:])
}

// ref returns the name and id given for level.
func (r Ref) ref(level Level) (name, id string) {
	switch level {
	case LevelCampaign:
		return r.CampaignName, r.CampaignID
	case LevelAdset:
		return r.AdsetName, r.AdsetID
	default:
		return r.AdName, r.AdID
	}
}
