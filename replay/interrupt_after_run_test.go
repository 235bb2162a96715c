package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// closedPartialCtx reads as cancelled once the partial file's temporary
// name is gone: an interrupt that lands after every row was written,
// while the partial stream is being closed.
type closedPartialCtx struct {
	context.Context
	partial string
}

func (c closedPartialCtx) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if _, err := os.Lstat(c.partial); err != nil {
		return nil // not created yet
	}
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(c.partial), "."+filepath.Base(c.partial)+".tmp*"))
	if len(tmps) > 0 {
		return nil
	}
	return context.Canceled
}

// A run whose every row finished is complete, though an interrupt came
// while its files were closed: Record returns no error, and the trace
// must not say otherwise.
func TestInterruptAfterLastRowKeepsTraceComplete(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(3, 0, 30, 2))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	ctx := closedPartialCtx{Context: t.Context(), partial: PartialPath(cfg.Out)}
	sums, err := Record(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	if len(sums) != 1 || !sums[0].Written {
		t.Fatalf("summaries %+v, want one run written", sums)
	}
	meta, got, err := traces.ReadAll(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || meta.Extra["replay.status"] != "complete" {
		t.Errorf("output: %d rows, replay.status %q; want 3 rows, complete", len(got), meta.Extra["replay.status"])
	}
}
