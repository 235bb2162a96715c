package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// Where energy per output token was not measured, the section says why
// under the table, as verify prints it: the table's cell is "—" and the
// reason is in verify.json alone otherwise.
func TestVerificationSaysWhyEnergyIsUnknown(t *testing.T) {
	noDriver := "NVML: no NVIDIA driver"
	cand := func(rank int64, label, why string) verify.CandidateResult {
		return verify.CandidateResult{Rank: rank, Label: label, Repeat: verify.Repeat{Status: verify.StatusOK, EnergyUnknown: why}}
	}
	res := &verify.Result{Requests: 1, Candidates: []verify.CandidateResult{cand(1, "a", noDriver), cand(2, "b", "")}}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, b := range blocks {
		if tx, ok := b.(*Text); ok {
			texts = append(texts, tx.Text)
		}
	}
	all := strings.Join(texts, "\n")
	if want := verify.MetricEnergy + " not measured for #1 a: " + noDriver; !strings.Contains(all, want) {
		t.Errorf("section text:\n%s\nwant %q", all, want)
	}
	if strings.Contains(all, "#2 b:") {
		t.Errorf("section says energy is unknown for a candidate with no reason:\n%s", all)
	}
}
