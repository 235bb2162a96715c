package main

import (
	"slices"
	"testing"
)

// A run's window may begin before the log's first traced step (a log cut
// at its start): its first step has no previous one to time it from.
func TestRunDecodeStepsFirstStepInWindow(t *testing.T) {
	steps := []ubatchLine{
		{t: 1_000_500_000, cells: 32, tokens: 1},
		{t: 1_000_510_000, cells: 33, tokens: 1},
		{t: 1_000_520_000, cells: 64, tokens: 40}, // a prompt: not a decode step
		{t: 1_000_530_000, cells: 34, tokens: 1},
	}
	cells, gaps := runDecodeSteps(steps, 1_000_000_000, 1_002_000_000)
	if want := []int64{32, 33, 34}; !slices.Equal(cells, want) {
		t.Errorf("cells %v, want %v", cells, want)
	}
	if want := []int64{10_000}; !slices.Equal(gaps, want) {
		t.Errorf("gaps %v, want %v", gaps, want)
	}
}
