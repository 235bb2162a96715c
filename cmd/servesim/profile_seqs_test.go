package main

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/plan"
)

// A profile whose ramp ran at most 64 sequences at once prices a batch of
// 128 by extrapolating its decode terms: simulate, sweep and verify say
// so, naming both numbers; a plan within the measured range, or a
// profile that recorded none, gets no warning.
func TestProfileMismatchNamesSequencesPastTheMeasured(t *testing.T) {
	for _, c := range []struct {
		measured, seqs int
		want           string
	}{
		{64, 128, "up to 64 sequences at once, the plan max_num_seqs 128"},
		{64, 64, ""},
		{0, 128, ""},
	} {
		p := &calibrate.Profile{MaxSeqs: c.measured}
		pl := &plan.Plan{Batch: plan.Batch{Strategy: "continuous", MaxNumSeqs: c.seqs}}
		got := strings.Join(profileMismatch(p, pl), "; ")
		if c.want == "" && strings.Contains(got, "sequences") || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("measured %d, plan %d: differences %q, want %q", c.measured, c.seqs, got, c.want)
		}
	}
}
