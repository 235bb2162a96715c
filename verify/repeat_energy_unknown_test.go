package verify

import (
	"strings"
	"testing"
)

// Repeated runs that all say the same why-energy-is-unknown say it
// without a run, so candidates measured more than once share a line
// under the table; a reason only some runs give keeps its run.
func TestRepeatedRunsShareTheirEnergyUnknownReason(t *testing.T) {
	noDriver := "NVML: no NVIDIA driver"
	run := func(why string) Repeat {
		return Repeat{Status: StatusOK, EnergyUnknown: why, Measured: Metrics{OutTokPerSec: f(100)}}
	}
	cand := func(rank int64, label string, reps ...Repeat) CandidateResult {
		c := CandidateResult{Rank: rank, Label: label, Repeats: reps}
		c.Repeat, _, _ = summarize(reps)
		c.Rows = CompareMetrics(&Metrics{OutTokPerSec: f(100), JPerOutTok: f(2)}, &c.Measured, DefaultTolerances())
		return c
	}
	res := &Result{Candidates: []CandidateResult{
		cand(1, "a", run(noDriver), run(noDriver)),
		cand(2, "b", run(noDriver), run(noDriver), run(noDriver)),
		cand(3, "c", run(""), run("a single sample")),
	}}
	if got := res.Candidates[0].EnergyUnknown; got != noDriver {
		t.Errorf("energy_unknown of runs alike %q, want %q", got, noDriver)
	}
	if got, want := res.Candidates[2].EnergyUnknown, "run 2: a single sample"; got != want {
		t.Errorf("energy_unknown of one run of two %q, want %q", got, want)
	}
	var b strings.Builder
	res.WriteTable(&b)
	out := b.String()
	if want := "j_per_out_tok not measured for #1 a, #2 b: " + noDriver + "\n"; strings.Count(out, want) != 1 {
		t.Errorf("table:\n%s\nwant once: %q", out, want)
	}
	if n := strings.Count(out, noDriver); n != 1 {
		t.Errorf("table names the missing driver %d times, want once:\n%s", n, out)
	}
}
