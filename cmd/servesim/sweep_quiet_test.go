package main

import (
	"strings"
	"testing"
)

// -q hides the progress bar only: the one-line summary of the run stays.
func TestSimulateSweepQuietKeepsTheSummary(t *testing.T) {
	tr := shortTrace(t)
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--workers", "2", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "sweep: 12 configs, ") || !strings.Contains(out, " simulations in ") {
		t.Errorf("-q output lacks the summary line:\n%s", out)
	}
}
