package recovered

import (
	"errors"
	"strings"
	"testing"
)

func TestCall(t *testing.T) {
	failed := errors.New("failed")
	if err := Call(func() error { return failed }); err != failed {
		t.Fatalf("an error: %v", err)
	}
	err := Call(func() error {
		var m map[string]int
		//lint:ignore SA5000 the test raises this runtime panic on purpose, as a bug would
		m["x"] = 1
		return nil
	})
	var p *Panic
	if !errors.As(err, &p) || !strings.Contains(err.Error(), "assignment to entry in nil map") ||
		!strings.Contains(string(p.Stack), "recovered.TestCall") {
		t.Fatalf("a panic: %v", err)
	}
}
