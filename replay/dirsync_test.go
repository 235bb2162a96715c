package replay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// dirUnsyncedTrace is a trace writer whose Close renames the stream into
// place, then reports its directory's sync as failed.
type dirUnsyncedTrace struct {
	traces.Writer
	path string
}

func (w *dirUnsyncedTrace) Flush() error { return w.Writer.(traces.Flusher).Flush() }

func (w *dirUnsyncedTrace) TempPath() string {
	return w.Writer.(interface{ TempPath() string }).TempPath()
}

func (w *dirUnsyncedTrace) Close() error {
	if err := w.Writer.Close(); err != nil {
		return err
	}
	return fmt.Errorf("%s: %w: %w", w.path, atomicfile.ErrDirNotSynced, errors.New("input/output error"))
}

// A partial stream renamed into place whose directory was not synced holds
// every row: the run writes its trace from it, and leaves neither the
// stream nor its hidden temporary file behind.
func TestPartialDirNotSyncedStillWritesTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(3, time.Millisecond, 30, 2))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	orig := createTrace
	t.Cleanup(func() { createTrace = orig })
	createTrace = func(path string, meta traces.Meta) (traces.Writer, error) {
		w, err := orig(path, meta)
		if err != nil {
			return nil, err
		}
		return &dirUnsyncedTrace{Writer: w, path: path}, nil
	}
	sums, err := Record(t.Context(), cfg, nil)
	if err != nil {
		t.Fatalf("Record: %v; want the trace written", err)
	}
	if written, left := Outcome(cfg, sums); !written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want written, no rows left", written, left)
	}
	if _, got, err := traces.ReadAll(cfg.Out); err != nil || len(got) != 3 {
		t.Errorf("%s holds %d rows (%v), want 3", cfg.Out, len(got), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); name != "in.jsonl" && name != "out.jsonl" {
			t.Errorf("%s left behind in the output's directory", name)
		}
	}
}

// A trace renamed to --out whose directory was not synced is written: the
// run says so and reports the error, and removes its partial stream, which
// would make the next run refuse to start.
func TestOutDirNotSyncedCountsAsWritten(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(3, time.Millisecond, 30, 2))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	sums, err := Record(t.Context(), cfg, nil)
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Fatalf("Record: %v; want ErrDirNotSynced", err)
	}
	if written, left := Outcome(cfg, sums); !written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want written, no rows left", written, left)
	}
	if _, got, err := traces.ReadAll(cfg.Out); err != nil || len(got) != 3 {
		t.Errorf("%s holds %d rows (%v), want 3", cfg.Out, len(got), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); name != "in.jsonl" && name != "out.jsonl" {
			t.Errorf("%s left behind in the output's directory", name)
		}
	}
}
