package utm

import "strings"

// Index is an in-memory Entities over one project's entities, for callers that load them at once
// (and for tests). It is safe for concurrent reads once built.
type Index struct {
	byID   map[indexKey][]Entity
	byName map[indexKey][]Entity
}

type indexKey struct {
	level Level
	key   string
}

// NewIndex indexes entities by level and id, and by level and name.
func NewIndex(entities []Entity) *Index {
	ix := &Index{byID: map[indexKey][]Entity{}, byName: map[indexKey][]Entity{}}
	for _, e := range entities {
		id := indexKey{e.Level, e.ID}
		ix.byID[id] = append(ix.byID[id], e)
		name := indexKey{e.Level, foldName(e.Name)}
		ix.byName[name] = append(ix.byName[name], e)
	}
	return ix
}

// ByID implements Entities.
func (ix *Index) ByID(level Level, id string) []Entity {
	return ix.byID[indexKey{level, id}]
}

// ByName implements Entities.
func (ix *Index) ByName(level Level, name string) []Entity {
	return ix.byName[indexKey{level, foldName(name)}]
}

// foldName is the form in which names are compared: without case and surrounding spaces.
func foldName(name string) string {
	return strings.ToLower(strings.TrimSpace(name))
}
