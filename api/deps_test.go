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
		if !strings.Contains(p, "ClickHouse, Clock, Engine, Events, Logger, Objects, Orders, Platform") {
			t.Fatalf("panic %q", p)
		}
	}()
	New(Deps{})
}
