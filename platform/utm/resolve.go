package utm

// Level is an ad entity's level.
type Level string

// The levels, from the most general to the most specific.
const (
	LevelCampaign Level = "campaign"
	LevelAdset    Level = "adset"
	LevelAd       Level = "ad"
)

// levels lists the levels from the most general to the most specific; a chain is indexed alike.
var levels = [...]Level{LevelCampaign, LevelAdset, LevelAd}

// Entity is a synced campaign, ad set or ad of a project. ParentID is the id of the entity one
// level up (empty for a campaign).
type Entity struct {
	Level        Level
	ID           string
	Name         string
	ParentID     string
	Source       string // alpha_ads, beta_ads, gamma_ads
	AccountID    string
	ConnectionID string
}

// sameAs reports whether e and o are the same entity.
func (e Entity) sameAs(o Entity) bool {
	return e.Level == o.Level && e.ID == o.ID && e.Source == o.Source && e.ConnectionID == o.ConnectionID
}

// Entities looks up one project's synced entities.
type Entities interface {
	// ByID returns the entities of level with this id, across the project's connections.
	ByID(level Level, id string) []Entity
	// ByName returns the entities of level whose name equals name, compared without case and
	// surrounding spaces.
	ByName(level Level, name string) []Entity
}

// Attribution is the entity chain an event is attributed to. Level is the most specific level
// attributed; the entities below it are zero.
type Attribution struct {
	Level    Level
	Campaign Entity
	Adset    Entity
	Ad       Entity
}

// Resolve attributes ref to the most specific entity it designates, following the rules of the
// package comment. It reports false when nothing can be attributed.
func Resolve(ref Ref, es Entities) (Attribution, bool) {
	var resolved [len(levels)]*Entity
	for i, level := range levels {
		if e, ok := lookup(ref, level, es); ok {
			resolved[i] = &e
		}
	}
	for i := len(levels) - 1; i >= 0; i-- {
		if resolved[i] == nil {
			continue
		}
		chain, ok := ancestors(es, *resolved[i], i)
		if !ok || !agrees(chain, resolved[:i]) {
			continue
		}
		return Attribution{Level: levels[i], Campaign: chain[0], Adset: chain[1], Ad: chain[2]}, true
	}
	return Attribution{}, false
}

// lookup resolves one level of ref: by id when there is one, else by name; only a single match
// resolves.
func lookup(ref Ref, level Level, es Entities) (Entity, bool) {
	name, id := ref.ref(level)
	var found []Entity
	switch {
	case id != "":
		found = es.ByID(level, id)
	case name != "":
		found = es.ByName(level, name)
	}
	if len(found) != 1 {
		return Entity{}, false
	}
	return found[0], true
}

// ancestors returns the chain from the campaign down to e, which sits at levels[at]. Each parent
// is looked up by e's ParentID within e's source and connection and must exist exactly once.
func ancestors(es Entities, e Entity, at int) ([len(levels)]Entity, bool) {
	var chain [len(levels)]Entity
	chain[at] = e
	for i := at - 1; i >= 0; i-- {
		child := chain[i+1]
		var parents []Entity
		if child.ParentID != "" {
			for _, p := range es.ByID(levels[i], child.ParentID) {
				if p.Source == child.Source && p.ConnectionID == child.ConnectionID {
					parents = append(parents, p)
				}
			}
		}
		if len(parents) != 1 {
			return chain, false
		}
		chain[i] = parents[0]
	}
	return chain, true
}

// agrees reports whether every resolved level above the attributed one is the chain's entity.
func agrees(chain [len(levels)]Entity, resolved []*Entity) bool {
	for i, r := range resolved {
		if r != nil && !r.sameAs(chain[i]) {
			return false
		}
	}
	return true
}
