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

// A run interrupted before any of its rows completed measured nothing: it
// writes no trace, so an earlier file of the output's name stays as it
// was, and it leaves no partial file.
func TestRecordInterruptedBeforeAnyRowKeepsTheEarlierTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	in := rows(2, time.Millisecond, 30, 2)
	for _, r := range in {
		r.Arrival += int64(time.Hour) // the interrupt comes while the first row waits for its time
	}
	cfg.Trace = writeTrace(t, dir, "in.jsonl", in)
	cfg.Out = filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(cfg.Out, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	sums, err := Record(ctx, cfg, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Record: %v, want the context's error", err)
	}
	if len(sums) != 1 || sums[0].Sent != 0 || sums[0].NotSent != 2 {
		t.Fatalf("summaries %+v: want one run that sent nothing and left 2 rows", sums)
	}
	if b, _ := os.ReadFile(cfg.Out); string(b) != "earlier\n" {
		meta, got, _ := traces.ReadAll(cfg.Out)
		t.Errorf("%s replaced (%d rows, status %q): want the earlier file left as it was", cfg.Out, len(got), meta.Extra["replay.status"])
	}
	if _, err := os.Lstat(PartialPath(cfg.Out)); err == nil {
		t.Errorf("%s left", PartialPath(cfg.Out))
	}
	if written, left := Outcome(cfg, sums); written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want neither", written, left)
	}
}

// Rows the interrupt cut short are written as canceled, but they measured
// nothing either: with requests in flight and none finished, an interrupt
// still leaves an earlier file of the output's name as it was.
func TestRecordInterruptedWithOnlyCanceledRowsKeepsTheEarlierTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(int) replaytest.Fault { return replaytest.Hang }})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(2, time.Millisecond, 30, 2))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(cfg.Out, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	sums, err := Record(ctx, cfg, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Record: %v, want the context's error", err)
	}
	if len(sums) != 1 || sums[0].Sent != 2 || sums[0].FailedByKind[KindCanceled] != 2 {
		t.Fatalf("summaries %+v: want one run whose 2 requests were both canceled", sums)
	}
	if b, _ := os.ReadFile(cfg.Out); string(b) != "earlier\n" {
		meta, got, _ := traces.ReadAll(cfg.Out)
		t.Errorf("%s replaced (%d rows, status %q): want the earlier file left as it was", cfg.Out, len(got), meta.Extra["replay.status"])
	}
	if _, err := os.Lstat(PartialPath(cfg.Out)); err == nil {
		t.Errorf("%s left", PartialPath(cfg.Out))
	}
	if written, left := Outcome(cfg, sums); written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want neither", written, left)
	}
}

// A row the source trace marks failed is written unsent: it measured
// nothing, so a run interrupted before any sent row completed still leaves
// an earlier file of the output's name as it was.
func TestRecordInterruptedWithOnlySourceFailedRowsKeepsTheEarlierTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	in := rows(2, time.Millisecond, 30, 2)
	in[0].SourceFailed = true
	in[1].Arrival += int64(time.Hour) // the interrupt comes while it waits for its time
	cfg.Trace = writeTrace(t, dir, "in.jsonl", in)
	cfg.Out = filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(cfg.Out, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	sums, err := Record(ctx, cfg, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Record: %v, want the context's error", err)
	}
	if len(sums) != 1 || sums[0].Sent != 0 || sums[0].SourceFailed != 1 {
		t.Fatalf("summaries %+v: want one run that sent nothing and left 1 source-failed row", sums)
	}
	if b, _ := os.ReadFile(cfg.Out); string(b) != "earlier\n" {
		_, got, _ := traces.ReadAll(cfg.Out)
		t.Errorf("%s replaced (%d rows): want the earlier file left as it was", cfg.Out, len(got))
	}
}
