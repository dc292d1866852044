package engine

// Levels of entity grouping, coarsest first.
var Levels = []string{"account", "campaign", "adset", "ad"}

// Dimension is a member that filters rows before aggregation and, at its levels, keys the rows.
type Dimension struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Levels are the metadata.level values whose rows carry this dimension as a key.
	Levels []string `json:"levels"`

	// column is the fact column holding the value; for a name it is the level's id column and
	// nameLevel says which entity level the name belongs to.
	column    string
	nameLevel string
}

func idDim(level string) *Dimension {
	return &Dimension{Name: level + "_id", Type: "string", Levels: []string{level}, column: level + "_id"}
}

func nameDim(level string) *Dimension {
	return &Dimension{Name: level + "_name", Type: "string", Levels: []string{level}, column: level + "_id", nameLevel: level}
}

// dimensionList is the registry in the order GET /v3/fields lists it.
var dimensionList = []*Dimension{
	{Name: "source", Type: "string", Levels: Levels, column: "source"},
	{Name: "connection_id", Type: "string", Levels: []string{}, column: "connection_id"},
	idDim("account"), nameDim("account"),
	idDim("campaign"), nameDim("campaign"),
	idDim("adset"), nameDim("adset"),
	idDim("ad"), nameDim("ad"),
}

var dimensionsByName = func() map[string]*Dimension {
	m := map[string]*Dimension{}
	for _, d := range dimensionList {
		m[d.Name] = d
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
