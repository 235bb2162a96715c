package sim

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestOOMSummaryCountsEveryRequest: a run stopped by a static OOM counts
// among its requests those it kept from arriving, as its rows do, so a
// summary and its trace give the same failure share; a warm-up row counts
// in neither. It holds for Run, RunCluster and RunClosedLoop, with a
// writer and without one (as a sweep runs).
func TestOOMSummaryCountsEveryRequest(t *testing.T) {
	trace := func() []*traces.Request {
		w := req("W", 3500, 10, 2)
		w.Warmup = true
		return append(oomTrace(), w)
	}
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}, 10, false)
	runs := map[string]func(out traces.Writer) (*Summary, error){
		"run": func(out traces.Writer) (*Summary, error) {
			return Run(t.Context(), cfg, newSliceReader(trace()), out)
		},
		"cluster": func(out traces.Writer) (*Summary, error) {
			cs, err := RunCluster(t.Context(), ClusterConfig{Pools: []PoolConfig{{Name: "p", Replicas: 1, Router: RoundRobin, Replica: cfg}}},
				newSliceReader(trace()), out)
			return &cs.Summary, err
		},
		"cluster of two": func(out traces.Writer) (*Summary, error) {
			cont := testConfig(PolicyConfig{Name: Continuous, MaxNumSeqs: 8, MaxNumBatchedTokens: 4096}, 10, false)
			cs, err := RunCluster(t.Context(), ClusterConfig{Pools: []PoolConfig{
				{Name: "short", Replicas: 2, Router: RoundRobin, Replica: cont}, {Name: "long", Replicas: 1, Router: RoundRobin, Replica: cfg}},
				Threshold: 50}, newSliceReader(trace()), out)
			return &cs.Summary, err
		},
		"closed": func(out traces.Writer) (*Summary, error) {
			return RunClosedLoop(t.Context(), cfg, ClosedLoop{Clients: 2}, newSliceReader(trace()), out)
		},
	}
	for name, run := range runs {
		w := &memWriter{}
		sum, err := run(w)
		if err == nil {
			t.Errorf("%s: no OOM", name)
			continue
		}
		var requests, completed, notRun int64
		for _, r := range w.rows {
			if r.Warmup {
				continue
			}
			requests++
			switch {
			case r.Succeeded():
				completed++
			case strings.HasPrefix(r.Error, NotRunPrefix):
				notRun++
			}
		}
		if notRun == 0 || sum.Requests != requests || sum.Completed != completed || sum.Requests-sum.Completed-sum.Rejected != notRun {
			t.Errorf("%s: summary: %d requests, %d completed, %d rejected; rows: %d requests, %d completed, %d not run",
				name, sum.Requests, sum.Completed, sum.Rejected, requests, completed, notRun)
		}
		bare, _ := run(nil)
		if bare.Requests != sum.Requests || bare.Completed != sum.Completed {
			t.Errorf("%s: without a writer %d requests, %d completed; with one %d, %d", name, bare.Requests, bare.Completed, sum.Requests, sum.Completed)
		}
	}
}
