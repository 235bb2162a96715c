package replay

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// failingWriter refuses every row.
type failingWriter struct{ memWriter }

func (w *failingWriter) Write(*traces.Request) error { return errors.New("disk full") }

// A run stopped by a write error still accounts for every row it read:
// the rows sent before and after the failed write are counted as sent,
// though the trace could not hold them.
func TestWriteErrorCountsEveryRowRead(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	in := &countingReader{sliceReader: sliceReader{rows: rows(20, time.Millisecond, 30, 2)}}
	s, err := Run(t.Context(), cfg, in, &failingWriter{})
	if err == nil {
		t.Fatal("want the write error")
	}
	if s.Sent == 0 {
		t.Errorf("sent %d, want the rows that were sent counted", s.Sent)
	}
	if read := int(in.read.Load()); s.Sent+s.Warmup+s.NotSent != read {
		t.Errorf("read %d rows, but sent %d + warm-up %d + not sent %d = %d", read, s.Sent, s.Warmup, s.NotSent, s.Sent+s.Warmup+s.NotSent)
	}
	if s.Succeeded+s.Failed != s.Sent {
		t.Errorf("succeeded %d + failed %d != sent %d", s.Succeeded, s.Failed, s.Sent)
	}
}

// Rows left unsent by a write error were not left by an interrupt: the
// summary does not say they were.
func TestWriteErrorSummaryDoesNotSayInterrupted(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	in := &sliceReader{rows: rows(20, 50*time.Millisecond, 30, 2)}
	s, err := Run(t.Context(), cfg, in, &failingWriter{})
	if err == nil {
		t.Fatal("want the write error")
	}
	if s.NotSent == 0 {
		t.Fatalf("not sent %d: want the rows after the failed write left unsent", s.NotSent)
	}
	var b strings.Builder
	s.Print(&b)
	if strings.Contains(b.String(), "interrupted") {
		t.Errorf("summary after a write error:\n%s\nsays the run was interrupted", b.String())
	}
}

// A run stopped by a row it cannot schedule read that row: the summary
// counts it as not sent, so that every row read is accounted for.
func TestUnschedulableRowIsCountedNotSent(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	rs := rows(3, time.Millisecond, 30, 2)
	rs[2].Arrival = 5e18 // past 2^32 s
	in := &countingReader{sliceReader: sliceReader{rows: rs}}
	s, err := Run(t.Context(), cfg, in, &memWriter{})
	if err == nil || !strings.Contains(err.Error(), "past 2^32 s") {
		t.Fatalf("error %v: want the unschedulable row's", err)
	}
	if read := int(in.read.Load()); s.Sent+s.Warmup+s.NotSent != read {
		t.Errorf("read %d rows, but sent %d + warm-up %d + not sent %d = %d", read, s.Sent, s.Warmup, s.NotSent, s.Sent+s.Warmup+s.NotSent)
	}
}
