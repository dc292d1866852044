package engine

import "mtk/facts"

// Levels of entity grouping, coarsest first.
var Levels = []string{"account", "campaign", "adset", "ad"}

// Dimension is a member that filters rows before aggregation and, at its levels, keys the rows.
type Dimension struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Levels are the metadata.level values whose rows carry this dimension as a key.
	Levels []string `json:"levels"`
	// Metrics, for a traffic or order dimension (one of metadata.dimensions), are the metrics it
	// serves: the business family holds no ad-network metric, and its item rows no event.
	Metrics []string `json:"metrics,omitempty"`

	// column is the fact column holding the value; for a name it is the level's id column and
	// nameLevel says which entity level the name belongs to.
	column    string
	nameLevel string
	// business marks a traffic or order dimension, a key of the business family only; product
	// marks those of its item rows.
	business, product bool
}

func idDim(level string) *Dimension {
	return &Dimension{Name: level + "_id", Type: "string", Levels: []string{level}, column: level + "_id"}
}

func nameDim(level string) *Dimension {
	return &Dimension{Name: level + "_name", Type: "string", Levels: []string{level}, column: level + "_id", nameLevel: level}
}

// dimensionList is the registry in the order GET /v3/fields lists it.
var dimensionList = append([]*Dimension{
	{Name: "source", Type: "string", Levels: Levels, column: "source"},
	{Name: "connection_id", Type: "string", Levels: []string{}, column: "connection_id"},
	idDim("account"), nameDim("account"),
	idDim("campaign"), nameDim("campaign"),
	idDim("adset"), nameDim("adset"),
	idDim("ad"), nameDim("ad"),
}, businessDims()...)

// businessDims are the business family's dimensions (facts.BizDimensions), in their order.
func businessDims() []*Dimension {
	out := make([]*Dimension, len(facts.BizDimensions))
	for i, d := range facts.BizDimensions {
		out[i] = &Dimension{Name: d.Column, Type: "string", Levels: []string{}, column: d.Column, business: true, product: d.Item}
	}
	return out
}

// BusinessDimensions are the names metadata.dimensions takes, in registry order.
var BusinessDimensions = func() []string {
	var out []string
	for _, d := range dimensionList {
		if d.business {
			out = append(out, d.Name)
		}
	}
	return out
}()

var dimensionsByName = func() map[string]*Dimension {
	m := map[string]*Dimension{}
	for _, d := range dimensionList {
		m[d.Name] = d
		if !d.business {
			continue
		}
		d.Metrics = []string{}
		for _, x := range metricList {
			if !x.adNetwork() && !(d.product && x.event()) {
				d.Metrics = append(d.Metrics, x.Name)
			}
		}
	}
	return m
}()

func validLevel(l string) bool {
	for _, x := range Levels {
		if x == l {
			return true
		}
	}
	return false
}

func validSource(s string) bool {
	for _, x := range Sources {
		if x == s {
			return true
		}
	}
	return false
}

// isBusinessDimension reports whether name is a traffic or order dimension (a row key).
func isBusinessDimension(name string) bool {
	d := dimensionsByName[name]
	return d != nil && d.business
}
