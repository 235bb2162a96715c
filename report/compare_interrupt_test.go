package report

import (
	"context"
	"errors"
	"testing"
)

// Compare's bootstrap intervals take tens of seconds over millions of
// requests: a done context stops them and comes back as Compare's error.
func TestCompareStopsWhenContextDone(t *testing.T) {
	a, b := pairedRun(t, "a", 200, 1), pairedRun(t, "b", 200, 1.15)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	cs, err := Compare(ctx, a, b, 0.10)
	if !errors.Is(err, context.Canceled) || cs != nil {
		t.Errorf("Compare with a done context = %d changes, %v; want none, context.Canceled", len(cs), err)
	}
}

// compareRuns is Compare of a and b under a context that stays live.
func compareRuns(t *testing.T, a, b *Run, threshold float64) []Change {
	t.Helper()
	cs, err := Compare(t.Context(), a, b, threshold)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
