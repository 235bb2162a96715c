package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// A simulation in which no request completes (every prompt too long for
// the candidate's max_model_len) against a replay that served them: the
// overlay has the measured line only, and its caption says the simulated
// one is missing rather than let the figure read as a single run.
func TestVerificationCDFSaysALineIsMissing(t *testing.T) {
	dir := t.TempDir()
	meas := oneRequestTrace(t, filepath.Join(dir, "rank01.parquet"), "live")
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens, r.Error = "0", 5000, 5, "rejected: prompt exceeds max_model_len"
	sim := filepath.Join(dir, "rank01.sim.parquet")
	if err := traces.WriteAll(sim, traces.Meta{Source: "simulated"}, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a",
		Repeat: verify.Repeat{Status: verify.StatusOK, Trace: meas}, SimTrace: sim}}}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range blocks {
		switch b := b.(type) {
		case *Figure:
			if strings.HasPrefix(b.Name, "verify-rank01-") {
				n++
				if !strings.Contains(b.Caption, "simulated") {
					t.Errorf("figure %s: caption %q does not say the simulated line is missing", b.Name, b.Caption)
				}
			}
		case *Text:
			if strings.Contains(b.Text, "CDFs not drawn") {
				t.Errorf("note %q: the simulated trace was read", b.Text)
			}
		}
	}
	if n == 0 {
		t.Error("no CDF figure")
	}
}
