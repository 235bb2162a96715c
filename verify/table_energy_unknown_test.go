package verify

import (
	"strings"
	"testing"
)

// The table's energy cell is "—" where NVML measured none; why is said
// once under the table, for the candidates it holds for, not in a cell.
func TestTableSaysWhyEnergyIsUnknown(t *testing.T) {
	noDriver := "NVML: no NVIDIA driver"
	cand := func(rank int64, label, why string) CandidateResult {
		c := CandidateResult{Rank: rank, Label: label, Repeat: Repeat{Status: StatusOK, EnergyUnknown: why,
			Measured: Metrics{OutTokPerSec: f(100)}}}
		c.Rows = CompareMetrics(&Metrics{OutTokPerSec: f(100), JPerOutTok: f(2)}, &c.Measured, DefaultTolerances())
		return c
	}
	res := &Result{Candidates: []CandidateResult{cand(1, "a", noDriver), cand(2, "b", noDriver),
		cand(3, "c", "NVML sampled 8 devices, the plan holds 2"), cand(4, "d", "")}}
	var b strings.Builder
	res.WriteTable(&b)
	out := b.String()
	for _, want := range []string{
		"j_per_out_tok not measured for #1 a, #2 b: " + noDriver + "\n",
		"j_per_out_tok not measured for #3 c: NVML sampled 8 devices, the plan holds 2\n",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("table:\n%s\nwant once: %q", out, want)
		}
	}
	if n := strings.Count(out, noDriver); n != 1 {
		t.Errorf("table names the missing driver %d times, want once:\n%s", n, out)
	}
	if strings.Contains(out, "#4 d:") {
		t.Errorf("table says energy is unknown for a candidate with no reason:\n%s", out)
	}
}
