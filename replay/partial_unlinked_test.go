package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A failed run keeps its rows under the partial name even when that name
// is not linked to the stream, as on a file system without hard links:
// the rows are moved there, not deleted with the temporary file.
func TestRecordFailedRunKeepsRowsWithoutPartialLink(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	partial := PartialPath(out)
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n == 0 {
			os.Remove(partial) // the stream stays under its temporary name alone
		}
		return replaytest.OK
	}})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Trace = filepath.Join(dir, "in.csv")
	// The third row cannot be scheduled: the run fails after the first two.
	trace := "arrival_ns,prompt_tokens,output_tokens\n0,30,2\n1000000,30,2\n5000000000000000000,30,2\n"
	if err := os.WriteFile(cfg.Trace, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Out = out
	_, err := Record(t.Context(), cfg, nil)
	if err == nil {
		t.Fatal("a row past the latest schedulable time did not fail the run")
	}
	if !strings.Contains(err.Error(), partial) {
		t.Errorf("error %q does not name %s, where the run's rows are kept", err, partial)
	}
	if n := countRows(partial); n != 2 {
		t.Errorf("%s holds %d rows, want the 2 sent", partial, n)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// A file of the partial name that is not the run's stream (another run's,
// made after this one linked its own) is neither replaced nor removed, and
// the run's error does not say its rows are in it.
func TestRecordFailedRunLeavesAnotherPartialAlone(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	partial := PartialPath(out)
	const other = "another run's rows\n"
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n == 0 {
			os.Remove(partial)
			os.WriteFile(partial, []byte(other), 0o644)
		}
		return replaytest.OK
	}})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Trace = filepath.Join(dir, "in.csv")
	trace := "arrival_ns,prompt_tokens,output_tokens\n0,30,2\n1000000,30,2\n5000000000000000000,30,2\n"
	if err := os.WriteFile(cfg.Trace, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Out = out
	sums, err := Record(t.Context(), cfg, nil)
	if err == nil {
		t.Fatal("a row past the latest schedulable time did not fail the run")
	}
	if written, left := Outcome(cfg, sums); written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want neither", written, left)
	}
	if strings.Contains(err.Error(), "stay in "+partial) {
		t.Errorf("error %q says the run's rows are in %s, which is another file", err, partial)
	}
	if b, _ := os.ReadFile(partial); string(b) != other {
		t.Errorf("%s holds %q, want the other file left as it was", partial, b)
	}
}
