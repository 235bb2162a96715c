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
	if r := rows["throughput"]; r.Min != 0 || r.Max != 4 || r.Mean != 2 {
		t.Errorf("throughput spread %+v, want 0, 2, 4", r)
	}
	var b bytes.Buffer
	PrintSpread(&b, Spread([]*Summary{ok, failed, ok2}))
	if strings.Contains(b.String(), "TPOT") {
		t.Errorf("spread prints an unmeasured metric:\n%s", b.String())
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
