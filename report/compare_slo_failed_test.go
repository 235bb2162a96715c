package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A per-request trace whose every request failed was still counted
// against the SLO: none of its requests met it. Its goodput, a rate as its
// throughput is, stays unmeasured (no success, no window), but the count
// line read "not counted (no per-request trace)".
func TestCompareSLOCountsARunWithNoSuccess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dead.parquet")
	var rows []*traces.Request
	for i := range 4 {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(i)*1e9, 100, 10
		r.ScheduledSend, r.ActualSend = r.Arrival, r.Arrival
		r.Error, r.HTTPStatus = "HTTP 500", 500
		rows = append(rows, r)
	}
	if err := traces.WriteAll(path, traces.Meta{Source: "live"}, rows); err != nil {
		t.Fatal(err)
	}
	slo := traces.SLO{TTFT: time.Second}
	b, err := TraceRun(t.Context(), path, slo)
	if err != nil {
		t.Fatal(err)
	}
	if b.SLO != slo || !math.IsNaN(b.Metrics.Goodput) {
		t.Errorf("SLO %v, goodput %v: want the SLO counted against, goodput unmeasured", b.SLO, b.Metrics.Goodput)
	}
	a := handRun("a", 1)
	a.SLO, a.Metrics.MetSLO, a.Metrics.Goodput = slo, 100, 1
	var out strings.Builder
	if err := WriteComparison(&out, a, b, compareRuns(t, a, b, 0.1), 0.1); err != nil {
		t.Fatal(err)
	}
	if want := "within ttft=1s A: 100 of 100; B: 0 of 4"; !strings.Contains(out.String(), want) {
		t.Errorf("want %q, got:\n%s", want, out.String())
	}
}
