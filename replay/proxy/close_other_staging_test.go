package proxy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	p.wmu.Lock()
	p.w = closeFailingWriter{p.w}
	p.wmu.Unlock()
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

// Where the staging file could not be linked, a stream that fails to
// close takes the session's rows with its temporary file: the error says
// they were not kept, as record's does, rather than leave the staging
// path it names to be looked for.
func TestCloseFailureUnlinkedSaysRowsNotKept(t *testing.T) {
	orig := linkFile
	t.Cleanup(func() { linkFile = orig })
	linkFile = func(from, to string) error {
		return &os.LinkError{Op: "link", Old: from, New: to, Err: errors.New("operation not permitted")}
	}
	r := newRig(t, ".parquet", nil)
	r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
	r.srv.Close()
	tmp := r.p.w.(interface{ TempPath() string }).TempPath()
	r.p.wmu.Lock()
	r.p.w = closeFailingWriter{r.p.w}
	r.p.wmu.Unlock()
	err := r.p.Close()
	if err == nil || !strings.Contains(err.Error(), "the rows written so far were not kept") {
		t.Errorf("Close: %v; want it to say the rows were not kept", err)
	}
	if s := r.p.Stats(); s.RowsLeft != "" {
		t.Errorf("RowsLeft %q: want none", s.RowsLeft)
	}
	if _, serr := os.Stat(tmp); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("%s: %v; want it removed with the rows", tmp, serr)
	}
}

// flushCloseFailingWriter fails every Flush and its Close, as a full disk
// does, its temporary file removed.
type flushCloseFailingWriter struct{ *failingFlushWriter }

func (w flushCloseFailingWriter) Close() error { return closeFailingWriter{w.Writer}.Close() }

// Rows not kept after a failed write: the error still says how many
// requests finished unrecorded after the failure, as it does where the
// rows are kept.
func TestCloseFailureUnlinkedCountsUnrecorded(t *testing.T) {
	orig := linkFile
	t.Cleanup(func() { linkFile = orig })
	linkFile = func(from, to string) error {
		return &os.LinkError{Op: "link", Old: from, New: to, Err: errors.New("operation not permitted")}
	}
	r := newRig(t, ".parquet", func(c *Config) { c.FlushInterval = 5 * time.Millisecond })
	r.p.wmu.Lock()
	r.p.w = flushCloseFailingWriter{&failingFlushWriter{Writer: r.p.w}}
	r.p.wmu.Unlock()
	r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
	waitWriteFailed(t, r.p)
	r.post(t, "/v1/completions", `{"model":"m","prompt":"there was a proxy"}`)
	r.srv.Close()
	err := r.p.Close()
	for _, want := range []string{
		"the rows written so far were not kept",
		"1 request that finished from the failure on went unrecorded",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Close: %v; want it to say %q", err, want)
		}
	}
}
