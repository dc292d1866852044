package api

import (
	"strings"
	"testing"
)

// New names every missing dependency at once instead of serving routes that would fail when
// first called.
func TestNewRefusesMissingDependencies(t *testing.T) {
	defer func() {
		p, _ := recover().(string)
		want := "Answers, ClickHouse, Clock, Connections, Containers, Events, Fires, Idempotency, Keys, Links, Log, " +
			"OAuth, Objects, Orders, Postgres, Projects, Scripts, Stats, Users"
		if !strings.Contains(p, want) {
			t.Fatalf("panic %q, want it to name %s", p, want)
		}
	}()
	New(Deps{})
}
