package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A run that fails after writing rows keeps them in its partial file, and
// its error says where: else the file turns up only when the next record
// refuses to start beside it.
func TestRecordFailedRunNamesItsKeptRows(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = filepath.Join(dir, "in.csv")
	// The third row cannot be scheduled: the run fails after the first two.
	trace := "arrival_ns,prompt_tokens,output_tokens\n0,30,2\n1000000,30,2\n5000000000000000000,30,2\n"
	if err := os.WriteFile(cfg.Trace, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Out = filepath.Join(dir, "out.csv")
	cfg.Repeat = 2
	sums, err := Record(t.Context(), cfg, nil)
	if err == nil {
		t.Fatal("a row past the latest schedulable time did not fail the run")
	}
	_, left := Outcome(cfg, sums)
	if left == "" {
		t.Fatal("no rows kept")
	}
	if !strings.Contains(err.Error(), left) {
		t.Errorf("error %q does not name %s, where the run's rows are kept", err, left)
	}
}
