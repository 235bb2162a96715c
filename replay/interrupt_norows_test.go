package replay

import (
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A run interrupted before any of its rows completed measured nothing: it
// writes no trace, so an earlier file of the output's name stays as it
// was, and it leaves no partial file.
func TestRecordInterruptedBeforeAnyRowKeepsTheEarlierTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	in := rows(2, time.Millisecond, 30, 2)
	for _, r := range in {
		r.Arrival += int64(time.Hour) // the interrupt comes while the first row waits for its time
	}
	cfg, _ := recordConfig(t, srv, in)
	writeEarlierOut(t, cfg.Out)
	sums := recordInterruptedAfter(t, cfg, 200*time.Millisecond)
	if len(sums) != 1 || sums[0].Sent != 0 || sums[0].NotSent != 2 {
		t.Fatalf("summaries %+v: want one run that sent nothing and left 2 rows", sums)
	}
	checkEarlierOutKept(t, cfg.Out)
	checkNoPartialFile(t, cfg.Out)
	checkOutcome(t, cfg, sums, false, "")
}

// Rows the interrupt cut short are written as canceled, but they measured
// nothing either: with requests in flight and none finished, an interrupt
// still leaves an earlier file of the output's name as it was.
func TestRecordInterruptedWithOnlyCanceledRowsKeepsTheEarlierTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(int) replaytest.Fault { return replaytest.Hang }})
	defer srv.Close()
	cfg, _ := recordConfig(t, srv, rows(2, time.Millisecond, 30, 2))
	writeEarlierOut(t, cfg.Out)
	sums := recordInterruptedAfter(t, cfg, 300*time.Millisecond)
	if len(sums) != 1 || sums[0].Sent != 2 || sums[0].FailedByKind[KindCanceled] != 2 {
		t.Fatalf("summaries %+v: want one run whose 2 requests were both canceled", sums)
	}
	checkEarlierOutKept(t, cfg.Out)
	checkNoPartialFile(t, cfg.Out)
	checkOutcome(t, cfg, sums, false, "")
}

// A row the source trace marks failed is written unsent: it measured
// nothing, so a run interrupted before any sent row completed still leaves
// an earlier file of the output's name as it was.
func TestRecordInterruptedWithOnlySourceFailedRowsKeepsTheEarlierTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	in := rows(2, time.Millisecond, 30, 2)
	in[0].SourceFailed = true
	in[1].Arrival += int64(time.Hour) // the interrupt comes while it waits for its time
	cfg, _ := recordConfig(t, srv, in)
	writeEarlierOut(t, cfg.Out)
	sums := recordInterruptedAfter(t, cfg, 200*time.Millisecond)
	if len(sums) != 1 || sums[0].Sent != 0 || sums[0].SourceFailed != 1 {
		t.Fatalf("summaries %+v: want one run that sent nothing and left 1 source-failed row", sums)
	}
	checkEarlierOutKept(t, cfg.Out)
}

// Warm-up rows are not counted: a run interrupted once only they had
// completed measured nothing, and leaves an earlier file of the output's
// name as it was.
func TestRecordInterruptedAfterOnlyWarmupRowsKeepsTheEarlierTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	in := rows(2, time.Millisecond, 30, 2)
	in[0].Warmup = true
	in[1].Arrival += int64(time.Hour) // the interrupt comes while it waits for its time
	cfg, _ := recordConfig(t, srv, in)
	writeEarlierOut(t, cfg.Out)
	sums := recordInterruptedAfter(t, cfg, 300*time.Millisecond)
	if len(sums) != 1 || sums[0].Sent != 0 || sums[0].Warmup != 1 {
		t.Fatalf("summaries %+v: want one run that sent only its warm-up row", sums)
	}
	checkEarlierOutKept(t, cfg.Out)
	checkNoPartialFile(t, cfg.Out)
	checkOutcome(t, cfg, sums, false, "")
}
