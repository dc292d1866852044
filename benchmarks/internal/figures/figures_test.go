package figures

import (
	"testing"
)

// TestRecordKeepsOtherSteps checks that a step's figures replace its own and keep the others'.
func TestRecordKeepsOtherSteps(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	if err := Record(map[string]float64{"a.x": 1.5, "b.y": 2}); err != nil {
		t.Fatal(err)
	}
	if err := Record(map[string]float64{"a.x": 3}); err != nil {
		t.Fatal(err)
	}
	got, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a.x"].Value != 3 || got["b.y"].Value != 2 || got["a.x"].At.IsZero() {
		t.Fatalf("figures %v", got)
	}
	if err := Record(map[string]float64{"bad\tname": 1}); err == nil {
		t.Fatal("a name with a tab was recorded")
	}
}
