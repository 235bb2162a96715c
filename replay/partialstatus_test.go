package replay

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// The partial stream, which a kill or a second interrupt leaves behind,
// says its run did not finish; only the final output says complete.
func TestPartialStreamIsNotMarkedComplete(t *testing.T) {
	release := make(chan struct{})
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n > 0 {
			<-release
		}
		return replaytest.OK
	}})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(2, 0, 30, 2))
	cfg.Out = filepath.Join(dir, "out.jsonl")
	cfg.FlushEvery = 10 * time.Millisecond
	done := make(chan error, 1)
	go func() { _, err := Record(t.Context(), cfg, nil); done <- err }()
	partial := PartialPath(cfg.Out)
	for deadline := time.Now().Add(10 * time.Second); countRows(partial) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("no row in %s after 10 s", partial)
		}
	}
	r, err := traces.OpenTolerant(partial)
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	status := r.Meta().Extra["replay.status"]
	r.Close()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if status != "partial" {
		t.Errorf("partial stream mid-run: replay.status %q, want partial", status)
	}
	meta, _, err := traces.ReadAll(cfg.Out)
	if err != nil || meta.Extra["replay.status"] != "complete" {
		t.Errorf("output: replay.status %q, %v; want complete", meta.Extra["replay.status"], err)
	}
}
