package api

import (
	"strings"
	"testing"

	"mtk/internal/wire"
)

// New names every missing dependency at once instead of serving routes that would fail when
// first called.
func TestNewRefusesMissingDependencies(t *testing.T) {
	defer func() {
		p, _ := recover().(string)
		if !strings.Contains(p, "ClickHouse, Clock, Events, Log, Objects, Orders, Queries, Store") {
			t.Fatalf("panic %q", p)
		}
	}()
	New(&wire.System{})
}
