package replay

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A run in which no request succeeded measured no latency: its empty
// percentiles are left out of the spread, not counted as 0 ms.
func TestSpreadLeavesOutUnmeasuredRuns(t *testing.T) {
	ok := &Summary{Run: 1, Sent: 2, Succeeded: 2, RequestsPerSec: 4,
		TTFT: Latency{N: 2, P50: 100 * time.Millisecond, P99: 120 * time.Millisecond},
		Lag:  Latency{N: 2, P99: time.Millisecond}}
	ok2 := &Summary{Run: 3, Sent: 2, Succeeded: 2, RequestsPerSec: 2,
		TTFT: Latency{N: 2, P50: 200 * time.Millisecond, P99: 220 * time.Millisecond},
		Lag:  Latency{N: 2, P99: time.Millisecond}}
	failed := &Summary{Run: 2, Sent: 2, Failed: 2, FailedByKind: map[string]int{KindServer: 2},
		Lag: Latency{N: 2, P99: time.Millisecond}}
	rows := map[string]SpreadRow{}
	for _, r := range Spread([]*Summary{ok, failed, ok2}) {
		rows[r.Metric] = r
	}
	if r := rows["TTFT p50"]; r.Min != 100 || r.Mean != 150 || r.Max != 200 {
		t.Errorf("TTFT p50 spread %+v, want min 100, mean 150, max 200 (the failed run measured none)", r)
	}
	if r, ok := rows["TPOT p50"]; ok {
		t.Errorf("TPOT p50 spread %+v: no run measured it, want no row", r)
	}
	if r := rows["failed"]; r.Min != 0 || r.Max != 2 {
		t.Errorf("failed spread %+v, want 0 to 2", r)
	}
	if r := rows["failed"]; r.Runs != 3 || r.Of != 3 {
		t.Errorf("failed spread covers %d of %d runs, want all 3", r.Runs, r.Of)
	}
	var b bytes.Buffer
	PrintSpread(&b, []*Summary{ok, failed, ok2})
	if strings.Contains(b.String(), "TPOT") {
		t.Errorf("spread prints an unmeasured metric:\n%s", b.String())
	}
}

// A run that sent requests and saw none succeed has no window to measure
// rates over (its summary prints them as "—"): the spread leaves its rates
// out, as it does its latencies, rather than count 0 req/s, and says how
// many runs each row covers.
func TestSpreadLeavesOutRatesOfARunWithNoSuccess(t *testing.T) {
	slo := traces.SLO{TTFT: time.Second}
	ok := &Summary{Run: 1, Sent: 2, Succeeded: 2, Wall: time.Second, RequestsPerSec: 4, OutputTokensPerSec: 40, GoodputPerSec: 4, SLO: slo,
		TTFT: Latency{N: 2, P50: 100 * time.Millisecond, P99: 120 * time.Millisecond}}
	ok2 := &Summary{Run: 3, Sent: 2, Succeeded: 2, Wall: time.Second, RequestsPerSec: 2, OutputTokensPerSec: 20, GoodputPerSec: 2, SLO: slo,
		TTFT: Latency{N: 2, P50: 200 * time.Millisecond, P99: 220 * time.Millisecond}}
	failed := &Summary{Run: 2, Sent: 2, Failed: 2, FailedByKind: map[string]int{KindServer: 2}, SLO: slo}
	rows := map[string]SpreadRow{}
	for _, r := range Spread([]*Summary{ok, failed, ok2}) {
		rows[r.Metric] = r
	}
	for _, m := range []struct {
		name           string
		min, mean, max float64
	}{{"throughput", 2, 3, 4}, {"output tokens", 20, 30, 40}, {"goodput", 2, 3, 4}, {"TTFT p50", 100, 150, 200}} {
		r := rows[m.name]
		if r.Min != m.min || r.Mean != m.mean || r.Max != m.max || r.Runs != 2 || r.Of != 3 {
			t.Errorf("%s spread %+v, want %v, %v, %v over 2 of 3 runs (run 2 measured no rate)", m.name, r, m.min, m.mean, m.max)
		}
	}
	var b bytes.Buffer
	PrintSpread(&b, []*Summary{ok, failed, ok2})
	if !strings.Contains(b.String(), "req/s (2 of 3 runs)") {
		t.Errorf("spread does not say the throughput row covers 2 of 3 runs:\n%s", b.String())
	}
	if strings.Contains(b.String(), "count (") {
		t.Errorf("the failed row covers every run, and says so:\n%s", b.String())
	}
}

// A run interrupted before it sent a request measured neither throughput
// nor failures: the spread leaves it out rather than count it as 0.
func TestSpreadLeavesOutARunThatSentNothing(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	in := rows(3, time.Millisecond, 30, 2)
	for _, r := range in {
		r.Arrival += int64(300 * time.Millisecond) // the first send is due 0.3 s into each run
	}
	cfg.Trace = writeTrace(t, dir, "in.jsonl", in)
	cfg.Out = filepath.Join(dir, "out.jsonl")
	cfg.Repeat = 2
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sums, err := Record(ctx, cfg, &cancelOn{want: "run 2:", cancel: cancel})
	if !errors.Is(err, context.Canceled) || len(sums) != 2 || sums[1].Sent != 0 {
		t.Fatalf("want run 2 interrupted before its first send, got %v, %d summaries", err, len(sums))
	}
	rows := map[string]SpreadRow{}
	for _, r := range Spread(sums) {
		rows[r.Metric] = r
	}
	one := sums[0]
	if r := rows["throughput"]; r.Min != one.RequestsPerSec || r.Max != one.RequestsPerSec {
		t.Errorf("throughput spread %+v, want run 1's %v alone", r, one.RequestsPerSec)
	}
	if r := rows["output tokens"]; r.Min != one.OutputTokensPerSec {
		t.Errorf("output tokens spread %+v, want run 1's %v alone", r, one.OutputTokensPerSec)
	}
}

// A run interrupted partway counts the requests it cut short as failed and
// its rates cover only part of its schedule: the spread leaves it out and
// says so, rather than mix it in with the complete runs.
func TestSpreadLeavesOutAnInterruptedRun(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n >= 3 { // run 2's second request, and any after it
			return replaytest.Hang
		}
		return replaytest.OK
	}})
	defer srv.Close()
	cfg, _ := recordConfig(t, srv, rows(2, time.Millisecond, 30, 2))
	cfg.Repeat = 2
	sums := recordInterruptedAfter(t, cfg, time.Second)
	if len(sums) != 2 || !sums[1].Interrupted || sums[1].Succeeded != 1 || sums[1].FailedByKind[KindCanceled] != 1 {
		t.Fatalf("summaries %+v: want run 2 interrupted with one request done and one cut short", sums)
	}
	if sums[0].Interrupted {
		t.Errorf("run 1 completed, but its summary says it was interrupted")
	}
	for _, r := range Spread(sums) {
		if r.Runs != 1 || r.Of != 1 {
			t.Errorf("%s spread covers %d of %d runs: want run 1 alone", r.Metric, r.Runs, r.Of)
		}
		if r.Metric == "failed" && r.Max != 0 {
			t.Errorf("failed spread %+v: want run 2's canceled request left out", r)
		}
	}
	var b bytes.Buffer
	PrintSpread(&b, sums)
	if !strings.Contains(b.String(), "run 2 was interrupted: left out") {
		t.Errorf("spread does not say it left out the interrupted run 2:\n%s", b.String())
	}
}

// The schedule lag of a send the concurrency cap held back includes its
// wait for a slot, which the flag does not judge: with cap waits the
// spread also shows the client lag the flag judges, and says which is which.
func TestSpreadShowsTheClientLagTheFlagJudges(t *testing.T) {
	capped := func(run int, lag, client time.Duration) *Summary {
		return &Summary{Run: run, Sent: 2, Succeeded: 2, CapWaits: 1,
			Lag: Latency{N: 2, P99: lag}, ClientLag: Latency{N: 2, P99: client}}
	}
	runs := []*Summary{capped(1, 400*time.Millisecond, time.Millisecond), capped(2, 600*time.Millisecond, 3*time.Millisecond)}
	rows := map[string]SpreadRow{}
	for _, r := range Spread(runs) {
		rows[r.Metric] = r
	}
	if r := rows["client lag p99"]; r.Min != 1 || r.Mean != 2 || r.Max != 3 {
		t.Errorf("client lag p99 spread %+v, want min 1, mean 2, max 3 ms (the lag without the cap waits)", r)
	}
	if r := rows["schedule lag p99"]; r.Min != 400 || r.Max != 600 {
		t.Errorf("schedule lag p99 spread %+v, want 400 to 600 ms (the waits included)", r)
	}
	var b bytes.Buffer
	PrintSpread(&b, runs)
	if !strings.Contains(b.String(), "schedule lag includes the waits for a concurrency slot") {
		t.Errorf("spread does not say its schedule lag includes the cap waits:\n%s", b.String())
	}
}

// Without cap waits the client lag is the schedule lag: no second row.
func TestSpreadShowsOneLagRowWithoutCapWaits(t *testing.T) {
	run := &Summary{Run: 1, Sent: 2, Succeeded: 2, Lag: Latency{N: 2, P99: time.Millisecond}, ClientLag: Latency{N: 2, P99: time.Millisecond}}
	for _, r := range Spread([]*Summary{run, run}) {
		if r.Metric == "client lag p99" {
			t.Errorf("client lag row %+v beside an equal schedule lag", r)
		}
	}
}
