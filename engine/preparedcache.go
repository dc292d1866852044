package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// Prepared queries are kept by what compiling them depends on (prepareKey), so that a query
// asked again, an answer cache hit above all, costs neither a compilation nor the hashing of its
// statements (Key). A relative range resolves to other days as the clock moves, so it is
// another key then; entries go after preparedFor so that an idle project's are dropped.
const (
	preparedFor = 10 * time.Minute
	preparedMax = 10_000
)

// prepareKey is what Compile's work for a checked query depends on: the scope, the body, its
// time range resolved at now in the project's zone, and whether that range and its comparison
// period's have ended at now (plan.hourOnly's warning reads it). false: not kept (an unchecked
// body, an invalid zone: Compile says why).
func prepareKey(scope Scope, in QueryInput, now time.Time) ([sha256.Size]byte, bool) {
	loc, ok := loadZone(scope.TimeZone)
	if !in.checked || in.digest == ([sha256.Size]byte{}) || !ok {
		return [sha256.Size]byte{}, false
	}
	h := sha256.New()
	b := scope.appendKey(make([]byte, 0, 256))
	b = append(b, in.digest[:]...)
	start, end := resolveRange(in.Time, loc, now)
	b = binary.BigEndian.AppendUint64(b, uint64(start.Unix()))
	b = binary.BigEndian.AppendUint64(b, uint64(end.Unix()))
	b = append(b, ended(end, now))
	if in.Time != nil && in.Time.Compare != nil && end.After(start) {
		_, cmpEnd := compareRange(in.Time.Compare, start, end, loc)
		b = append(b, ended(cmpEnd, now))
	}
	h.Write(b)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key, true
}

func flag(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func ended(end, now time.Time) byte {
	if end.Before(now) {
		return 1
	}
	return 0
}

// appendKey appends every member of the scope to b, each string length-prefixed so that no two
// scopes write the same bytes (TestPreparedKeysCoverTheScope changes each member in turn).
func (s Scope) appendKey(b []byte) []byte {
	str := func(b []byte, v string) []byte {
		return append(binary.AppendUvarint(b, uint64(len(v))), v...)
	}
	b = str(str(str(b, s.ProjectID), s.Currency), s.TimeZone)
	b = append(b, flag(s.SubHour), flag(s.PairsPending))
	b = binary.AppendUvarint(b, uint64(len(s.ConnectionIDs)))
	for _, c := range s.ConnectionIDs {
		b = str(b, c)
	}
	return b
}
