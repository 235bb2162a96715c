package proxy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/traces"
)

// closeFailingWriter fails Close as on a full disk: its temporary file is
// removed, as the real writer's is.
type closeFailingWriter struct{ traces.Writer }

func (w closeFailingWriter) Close() error {
	w.Writer.Abort()
	return errors.New("no space left on device")
}

// A session whose stream fails to close keeps its rows under the staging
// name only when that file is its stream's link: a file of that name put
// there since (another session's) does not hold them, and is not reported
// as the place they stay.
func TestCloseFailureDoesNotClaimAnotherStagingFile(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Upstream = "http://127.0.0.1:1"
	cfg.Out = filepath.Join(t.TempDir(), "run.parquet")
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.wtmp == "" {
		t.Skip("the file system refused the staging link")
	}
	staging := stagingPath(cfg.Out)
	if err := os.Remove(staging); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(staging, []byte("another session's rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.w = closeFailingWriter{p.w}
	p.finished = 1 // else the session, which captured nothing, writes no trace
	if err := p.Close(); err == nil {
		t.Fatal("Close: nil error, want the close error")
	}
	if s := p.Stats(); s.RowsLeft != "" {
		t.Errorf("RowsLeft %q: want none, %s is not the session's stream", s.RowsLeft, staging)
	}
	if b, _ := os.ReadFile(staging); string(b) != "another session's rows" {
		t.Errorf("%s now holds %q: want the other session's file left as it was", staging, b)
	}
}
