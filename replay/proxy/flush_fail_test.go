package proxy

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// failingFlushWriter fails every Flush as a full disk does; its Close,
// which flushes the underlying stream itself, succeeds.
type failingFlushWriter struct{ traces.Writer }

func (w *failingFlushWriter) Flush() error { return errors.New("no space left on device") }

// waitWriteFailed waits until a flush has failed the trace.
func waitWriteFailed(t *testing.T, p *Proxy) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		p.wmu.Lock()
		failed := p.werr != nil
		p.wmu.Unlock()
		if failed {
			return
		}
	}
	t.Fatal("no flush failed")
}

// After a failed flush the requests that finish are forwarded but not
// recorded: a trace published at Out would silently lack them. Close
// fails, as record does on a write failure, and keeps the rows in the
// staging stream, saying how many it holds and how many went unrecorded.
func TestFlushFailureKeepsRowsInStaging(t *testing.T) {
	r := newRig(t, ".parquet", func(c *Config) { c.FlushInterval = 5 * time.Millisecond })
	r.p.wmu.Lock()
	r.p.w = &failingFlushWriter{Writer: r.p.w}
	r.p.wmu.Unlock()
	r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
	waitWriteFailed(t, r.p)
	r.post(t, "/v1/completions", `{"model":"m","prompt":"there was a proxy"}`)
	r.srv.Close()
	err := r.p.Close()
	staging := stagingPath(r.out)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Close: %v; want the flush error", err)
	}
	if _, serr := os.Stat(r.out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("%s: %v; want no trace published without the unrecorded request", r.out, serr)
	}
	for _, want := range []string{
		fmt.Sprintf("the 1 row written so far stays in %s", staging),
		"1 request that finished from the failure on went unrecorded",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q: want it to say %q", err, want)
		}
	}
	if n := stagingRows(t, staging); n != 1 {
		t.Errorf("%s holds %d rows: want the one written before the failure", staging, n)
	}
	if s := r.p.Stats(); s.Written || s.RowsLeft != staging {
		t.Errorf("Written %v, RowsLeft %q: want false, %s", s.Written, s.RowsLeft, staging)
	}
}
