package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// recordConfig is a Record config against srv that replays in from
// dir/in.jsonl into dir/out.jsonl, dir being a fresh temporary directory.
func recordConfig(t *testing.T, srv *replaytest.Server, in []*traces.Request) (cfg Config, dir string) {
	t.Helper()
	dir = t.TempDir()
	cfg = testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", in)
	cfg.Out = filepath.Join(dir, "out.jsonl")
	return cfg, dir
}

// wrapPartialTrace makes Record's partial stream the writer wrap returns
// around the real one, for the rest of the test.
func wrapPartialTrace(t *testing.T, wrap func(path string, w traces.Writer) traces.Writer) {
	t.Helper()
	orig := createTrace
	t.Cleanup(func() { createTrace = orig })
	createTrace = func(path string, meta traces.Meta) (traces.Writer, error) {
		w, err := orig(path, meta)
		if err != nil {
			return nil, err
		}
		return wrap(path, w), nil
	}
}

// recordInterruptedAfter runs Record until d has passed and requires the
// context's error: the interrupt must be what ended the run.
func recordInterruptedAfter(t *testing.T, cfg Config, d time.Duration) []*Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	sums, err := Record(ctx, cfg, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Record: %v, want the context's error", err)
	}
	return sums
}

// earlierOut is what writeEarlierOut leaves at the output's path.
const earlierOut = "earlier\n"

// writeEarlierOut stands in for the trace of an earlier run at path.
func writeEarlierOut(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(earlierOut), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkEarlierOutKept fails the test if the file writeEarlierOut left at
// path was replaced.
func checkEarlierOutKept(t *testing.T, path string) {
	t.Helper()
	if b, _ := os.ReadFile(path); string(b) != earlierOut {
		meta, got, _ := traces.ReadAll(path)
		t.Errorf("%s replaced (%d rows, status %q): want the earlier file left as it was", path, len(got), meta.Extra["replay.status"])
	}
}

// checkNoPartialFile fails the test if the partial file of out is there.
func checkNoPartialFile(t *testing.T, out string) {
	t.Helper()
	if _, err := os.Lstat(PartialPath(out)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there (%v)", PartialPath(out), err)
	}
}

// checkOutcome fails the test unless Outcome says the trace was written
// as wantWritten says and the rows were left in wantLeft ("" for none).
func checkOutcome(t *testing.T, cfg Config, sums []*Summary, wantWritten bool, wantLeft string) {
	t.Helper()
	if written, left := Outcome(cfg, sums); written != wantWritten || left != wantLeft {
		t.Errorf("Outcome: written %v, rows left in %q; want written %v, rows left in %q", written, left, wantWritten, wantLeft)
	}
}

// checkOnlyInAndOut fails the test if dir holds anything beside the input
// and output traces recordConfig names.
func checkOnlyInAndOut(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); name != "in.jsonl" && name != "out.jsonl" {
			t.Errorf("%s left behind in the output's directory", name)
		}
	}
}

// checkTraceRows fails the test unless path is a whole trace of want rows.
func checkTraceRows(t *testing.T, path string, want int) {
	t.Helper()
	if _, got, err := traces.ReadAll(path); err != nil || len(got) != want {
		t.Errorf("%s holds %d rows (%v), want %d", path, len(got), err, want)
	}
}
