package main

import (
	"regexp"
	"strings"
	"testing"
)

// The timing line names the workers the sweep ran on: at most one per
// config it simulated (the small spec runs 11 of its 12 configs), so that
// the time of a worker per simulation is not multiplied by idle workers.
func TestSimulateSweepReportsTheWorkersItUsed(t *testing.T) {
	tr := shortTrace(t)
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--workers", "64")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`simulations in \S+ on (\d+) workers`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no timing line:\n%s", out)
	}
	if m[1] != "11" {
		t.Errorf("on %s workers, want 11 (one per config run):\n%s", m[1], out)
	}
}

// The knee flags take what the spec's [search] takes: finite numbers > 0
// (an infinite limit would leave every curve without a knee).
func TestSimulateSweepKneeFlagsMustBeFinite(t *testing.T) {
	tr := shortTrace(t)
	for _, f := range []string{"--knee-p99-pct", "--knee-throughput-pct"} {
		_, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, f, "inf")
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%s inf: err = %v, want it refused", f, err)
		}
	}
}
