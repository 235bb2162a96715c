package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// cancelOn is a log that cancels when a line holding want is written: an
// interrupt that lands between two steps of Record.
type cancelOn struct {
	bytes.Buffer
	want   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.want) {
		c.cancel()
	}
	return c.Buffer.Write(p)
}

// An interrupt that lands before a run starts stops Record there: the run
// neither sends nor writes a trace (an empty "interrupted" one would
// replace an earlier run's file of that name), and it has no summary.
func TestRecordInterruptedBeforeARunStartsIt(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Text = TextModel{} // calibrated first: the interrupt lands after it
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(4, time.Millisecond, 30, 2))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	cfg.Repeat = 2
	for k := 1; k <= 2; k++ {
		if err := os.WriteFile(RunPath(cfg.Out, k, 2), []byte("earlier\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	log := &cancelOn{want: "calibrated text model", cancel: cancel}
	probes := srv.Count()
	sums, err := Record(ctx, cfg, log)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Record: %v, want context.Canceled", err)
	}
	if len(sums) != 0 {
		t.Errorf("%d summaries (run 1: sent %d, not sent %d), want none: no run started", len(sums), sums[0].Sent, sums[0].NotSent)
	}
	if n := srv.Count() - probes; n > len(ProbeBytes) {
		t.Errorf("%d requests after the probes", n-len(ProbeBytes))
	}
	for k := 1; k <= 2; k++ {
		out := RunPath(cfg.Out, k, 2)
		if b, _ := os.ReadFile(out); string(b) != "earlier\n" {
			meta, rows, _ := traces.ReadAll(out)
			t.Errorf("%s replaced (%d rows, status %q): want the earlier file left as it was", out, len(rows), meta.Extra["replay.status"])
		}
		if _, err := os.Lstat(PartialPath(out)); err == nil {
			t.Errorf("%s left", PartialPath(out))
		}
	}
	if written, left := Outcome(cfg, sums); written || left != "" {
		t.Errorf("Outcome: written %v, rows left in %q; want neither", written, left)
	}
}
