package sweep

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim"
)

// batchesOf24WithRefusals is an evaluator for fixed batches of 24 that
// wait up to 5000 ms against a TTFT P99 limit of 2000 ms, over a steady
// trace of n requests whose first refused ones no KV cache can hold.
func batchesOf24WithRefusals(t *testing.T, n, refused int) *evaluator {
	t.Helper()
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [24]
"batch.max_wait_ms" = [5000]
[slo]
ttft_p99_ms = 2000
`)
	if err != nil {
		t.Fatal(err)
	}
	tr := steadyTrace(n)
	for i := range refused {
		tr.Reqs[i].PromptTokens = 1 << 30 // more tokens than any device's KV cache holds
	}
	ex := mustExpand(t, s)
	ev := &evaluator{}
	ev.reset(tr, s, &ex.Configs[0])
	return ev
}

// Requests the engine refuses on arrival never join a batch, so the
// trace's unfilled last batch holds the admitted requests left over from
// whole batches, and the refused ones break the limit at every load too:
// 989 requests of which 6 are too large for any KV cache leave 983
// admitted, 23 in the last batch of 24, the first 4 a second apart within
// the 3 s the wait exceeds the limit by, which with the 6 refused are more
// than the 9 a P99 over 989 lets break the limit. Counting every request
// sent (989 mod 24 = 5) hid that, and the search climbed to loads that
// cannot meet the SLO.
func TestLastBatchCountsOnlyAdmittedRequests(t *testing.T) {
	ev := batchesOf24WithRefusals(t, 989, 6)
	for _, scale := range []float64{8, 32, 128} { // batches fill within the limit: the last one and the refused break it
		if p, err := ev.run(context.Background(), scale, false); err != nil || p.ok {
			t.Fatalf("scale %g: err %v, SLO met %v; want it broken", scale, err, p != nil && p.ok)
		}
	}
	name, limit := ev.batchWaitLimit()
	note := ev.lastBatchNote(name, limit)
	want := "the trace's last 23 requests (983 admitted mod batch.batch_size 24) never fill a batch"
	if !strings.Contains(note, want) || !strings.Contains(note, "and 4 of them arrive within 3000 ms of it at search.start_scale 1 and above; with the 6 refused on arrival, 10 requests, more than the 9") {
		t.Errorf("note %q: want it to count the admitted requests with %q and add the 6 refused", note, want)
	}
}

// When the admitted requests fill whole batches, no last batch waits: the
// requests refused on arrival alone break the limit, and the note says so
// rather than speaking of a last batch of none. 1000 requests of which 40
// are too large for any KV cache leave 960 admitted, 40 full batches of
// 24, and the 40 refused are more than the 10 a P99 over 1000 lets break
// the limit.
func TestLastBatchNoteNamesRefusalsWhenBatchesFill(t *testing.T) {
	ev := batchesOf24WithRefusals(t, 1000, 40)
	name, limit := ev.batchWaitLimit()
	note := ev.lastBatchNote(name, limit)
	want := "the 40 requests refused on arrival break the TTFT limit of 2000 ms at every load, more than the 10 a P99 lets break it, so no heavier load meets the SLO"
	if note != want {
		t.Errorf("note %q\nwant %q", note, want)
	}
}

// Held turns are sent at their previous turn's end, not in arrival
// order: which requests form the trace's last batch, and how far apart
// they are sent, no longer follow from the arrivals, so no note claims
// that no heavier load meets the SLO and the search probes the loads.
// Without sessions nothing is held and the note stands.
func TestLastBatchNoteNotClaimedWithHeldTurns(t *testing.T) {
	ev := batchesOf24WithRefusals(t, 989, 6)
	ev.wait = &sim.SessionWait{}
	name, limit := ev.batchWaitLimit()
	if note := ev.lastBatchNote(name, limit); note == "" {
		t.Fatal("no note over a trace without sessions, whose arrivals session waiting keeps")
	}
	withSessions(ev.t, 50)
	if note := ev.lastBatchNote(name, limit); note != "" {
		t.Errorf("note %q with sessions' turns held, want none", note)
	}
	// Refusals on arrival break the limit whatever is held.
	ev = batchesOf24WithRefusals(t, 1000, 40)
	ev.wait = &sim.SessionWait{}
	withSessions(ev.t, 50)
	if note := ev.lastBatchNote(name, limit); !strings.Contains(note, "the 40 requests refused on arrival break the TTFT limit") {
		t.Errorf("note %q with sessions' turns held, want the refusals named", note)
	}
}

// withSessions spreads tr's rows over n sessions, turn after turn.
func withSessions(tr *Trace, n int) {
	for i := range tr.Reqs {
		tr.Reqs[i].SessionID = fmt.Sprint("s", i%n)
	}
	tr.Chained = chainedTurns(tr.Reqs)
}
