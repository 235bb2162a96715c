package proxy

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// lossyCloseWriter stores its first keep rows and fails Close as on a
// full disk: the rows after them, in the batch the close was writing,
// are lost, and its temporary file is removed, as the real writer's is.
type lossyCloseWriter struct {
	traces.Writer
	keep int
}

func (w *lossyCloseWriter) Write(r *traces.Request) error {
	if w.keep == 0 {
		return nil // held for the close that fails
	}
	w.keep--
	return w.Writer.Write(r)
}

func (w *lossyCloseWriter) Close() error {
	if err := w.Writer.(traces.Flusher).Flush(); err != nil {
		return err
	}
	w.Writer.Abort()
	return errors.New("no space left on device")
}

// closeLosingRows records two requests through a stream that keeps keep
// of them and fails to close, and returns Close's error.
func closeLosingRows(t *testing.T, keep int) (*rig, error) {
	t.Helper()
	r := newRig(t, ".parquet", nil)
	if r.p.wtmp == "" {
		t.Skip("the file system refused the staging link")
	}
	r.p.wmu.Lock()
	r.p.w = &lossyCloseWriter{Writer: r.p.w, keep: keep}
	r.p.wmu.Unlock()
	r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
	r.post(t, "/v1/completions", `{"model":"m","prompt":"there was a proxy"}`)
	r.srv.Close()
	return r, r.p.Close()
}

// A stream that fails to close holds the rows of its flushes before the
// failure, not every row written: the error says how many of them stay
// in the staging file, as record's does.
func TestCloseFailureSaysHowManyRowsStay(t *testing.T) {
	r, err := closeLosingRows(t, 1)
	staging := stagingPath(r.out)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Close: %v; want the close error", err)
	}
	if n := stagingRows(t, staging); n != 1 {
		t.Fatalf("%s holds %d rows: want the one stored before the disk filled", staging, n)
	}
	if want := fmt.Sprintf("1 of the 2 rows written stays in %s; the other was lost", staging); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q: want it to say %q", err, want)
	}
	if s := r.p.Stats(); s.RowsLeft != staging {
		t.Errorf("RowsLeft %q: want %s", s.RowsLeft, staging)
	}
}

// A failed close that lost every row leaves no staging file: it would be
// reported as where the rows stay while holding none, and the next
// session would refuse to start beside it.
func TestCloseFailureKeepingNoRowLeavesNoStagingFile(t *testing.T) {
	r, err := closeLosingRows(t, 0)
	staging := stagingPath(r.out)
	if err == nil || !strings.Contains(err.Error(), "none of the 2 rows written were kept") {
		t.Fatalf("Close: %v; want the close error, saying none of the rows written were kept", err)
	}
	if _, serr := os.Stat(staging); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("%s: %v; want it removed", staging, serr)
	}
	if s := r.p.Stats(); s.RowsLeft != "" {
		t.Errorf("RowsLeft %q: want none", s.RowsLeft)
	}
}

func stagingRows(t *testing.T, path string) int {
	t.Helper()
	n, err := traces.CountTolerant(path)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
