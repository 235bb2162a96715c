package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A line placed before the one above it (output of another thread that
// stamped its time first) is no step time: a negative one would pull the
// fit below what any step took.
func TestReadDecodeStepsSkipsTimeGoingBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.log")
	log := "SSKV t=1000000 n=32 used=32 head=0 ntok=1 seqs 0:31-31\n" +
		"SSKV t=1010000 n=33 used=33 head=0 ntok=1 seqs 0:32-32\n" +
		"SSKV t=1005000 n=34 used=34 head=0 ntok=1 seqs 0:33-33\n" +
		"SSKV t=1015000 n=35 used=35 head=0 ntok=1 seqs 0:34-34\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	steps, err := readDecodeSteps(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 {
		t.Errorf("steps %+v: want the 2 that the next line follows in time", steps)
	}
	for _, s := range steps {
		if s.ms < 0 {
			t.Errorf("step %+v: a negative step time", s)
		}
	}
}

// The same in a run's window: a ubatch stamped before the one above it
// gives no gap.
func TestRunDecodeStepsSkipsTimeGoingBack(t *testing.T) {
	steps := []ubatchLine{
		{t: 1_000_000, cells: 32, tokens: 1},
		{t: 1_010_000, cells: 33, tokens: 1},
		{t: 1_005_000, cells: 34, tokens: 1},
		{t: 1_015_000, cells: 35, tokens: 1},
	}
	_, gaps := runDecodeSteps(steps, 0, 2_000_000)
	if want := []int64{10_000, 10_000}; !slices.Equal(gaps, want) {
		t.Errorf("gaps %v, want %v", gaps, want)
	}
}
