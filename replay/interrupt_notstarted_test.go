package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// writtenCtx reads as cancelled once file exists: an interrupt that lands
// after a run wrote its trace, before the next run starts.
type writtenCtx struct {
	context.Context
	file string
}

func (c writtenCtx) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if _, err := os.Lstat(c.file); err == nil {
		return context.Canceled
	}
	return nil
}

// An interrupt between two runs leaves the later runs unstarted: the log
// names them, and the earlier files of their names that are still there,
// else those read as the runs' own.
func TestRecordInterruptedBetweenRunsSaysWhichDidNotStart(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(2, time.Millisecond, 30, 2))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	cfg.Repeat = 3
	earlier := RunPath(cfg.Out, 3, 3)
	if err := os.WriteFile(earlier, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sums, err := Record(writtenCtx{Context: t.Context(), file: RunPath(cfg.Out, 1, 3)}, cfg, &log)
	if !errors.Is(err, context.Canceled) || len(sums) != 1 || !sums[0].Written {
		t.Fatalf("Record: %v, %d summaries; want context.Canceled after run 1 was written", err, len(sums))
	}
	got := log.String()
	if !strings.Contains(got, "interrupted: runs 2–3 of 3 not started") {
		t.Errorf("log does not say runs 2–3 did not start:\n%s", got)
	}
	if !strings.Contains(got, "an earlier "+earlier+" left as it was") {
		t.Errorf("log does not name the earlier %s:\n%s", earlier, got)
	}
	if second := RunPath(cfg.Out, 2, 3); strings.Contains(got, second) {
		t.Errorf("log names %s, which does not exist:\n%s", second, got)
	}
	if b, _ := os.ReadFile(earlier); string(b) != "earlier\n" {
		t.Errorf("%s replaced", earlier)
	}
}
