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
	dir := t.TempDir()
	sim := oneRequestTrace(t, filepath.Join(dir, "sim.parquet"), "simulated")
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

// oneRequestTrace writes a trace of one served request (10 prompt tokens,
// 5 output, first token at 100 ms, last at 200 ms) to path.
func oneRequestTrace(t *testing.T, path, source string) string {
	t.Helper()
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens, r.HTTPStatus = "0", 10, 5, 200
	r.FirstToken, r.LastToken, r.UsageOutput = 1e8, 2e8, 5
	if err := traces.WriteAll(path, traces.Meta{Source: source}, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	return path
}
