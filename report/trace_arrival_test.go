package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A trace's latencies are kept in its requests' arrival order beside the
// sorted ones: compare's intervals resample them in blocks of
// neighbouring requests.
func TestTraceRunKeepsArrivalOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.parquet")
	ttfts := []int64{3, 1, 4, 1, 5} // seconds, in arrival order
	var rows []*traces.Request
	for i, ttft := range ttfts {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(i)*1e9, 100, 10
		r.ScheduledSend, r.ActualSend = r.Arrival, r.Arrival
		r.FirstToken, r.LastToken, r.HTTPStatus = r.Arrival+ttft*1e9, r.Arrival+10e9, 200
		rows = append(rows, r)
	}
	if err := traces.WriteAll(path, traces.Meta{Source: "live"}, rows); err != nil {
		t.Fatal(err)
	}
	run, err := TraceRun(t.Context(), path, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 1, 3, 4, 5}; !slices.Equal(run.Lat.TTFT, want) {
		t.Errorf("sorted TTFTs %v, want %v", run.Lat.TTFT, want)
	}
	if run.Lat.ByArrival == nil {
		t.Fatal("no latencies in arrival order")
	}
	if want := []float64{3, 1, 4, 1, 5}; !slices.Equal(run.Lat.ByArrival.TTFT, want) {
		t.Errorf("TTFTs in arrival order %v, want %v", run.Lat.ByArrival.TTFT, want)
	}
}
