package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// When one of a candidate's two traces cannot be read, the note names
// that one's error only, with no "<nil>" for the trace that was read.
func TestVerificationCDFNoteNamesOnlyTheFailure(t *testing.T) {
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens, r.HTTPStatus = "0", 10, 5, 200
	r.FirstToken, r.LastToken, r.UsageOutput = 1e8, 2e8, 5
	dir := t.TempDir()
	sim := filepath.Join(dir, "sim.parquet")
	if err := traces.WriteAll(sim, traces.Meta{Source: "simulated"}, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a",
		Repeat: verify.Repeat{Status: verify.StatusOK, Trace: filepath.Join(dir, "missing.parquet")}, SimTrace: sim}}}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tx, ok := b.(*Text); ok && strings.Contains(tx.Text, "CDFs not drawn") {
			if strings.Contains(tx.Text, "<nil>") || !strings.Contains(tx.Text, "missing.parquet") {
				t.Errorf("note %q: want the missing trace's error alone", tx.Text)
			}
			return
		}
	}
	t.Fatal("no note on the CDFs not drawn")
}
