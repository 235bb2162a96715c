package report

import (
	"fmt"
	"testing"

	"github.com/servesim/servesim/sim"
)

// clusterRun is a run of n replicas in one pool; replica i holds 10·(i+1)
// of its 100 blocks from t = 10 s (its first arrival) to 60 s.
func clusterRun(n int) *Run {
	r := handRun(fmt.Sprintf("%d replicas", n), 0.1)
	s := r.Result.Summary
	s.FirstArrival, s.Makespan = 10, 100
	s.KV = sim.KVStats{TotalBlocks: 100 * n, MeanUtil: .2, MaxUtil: .5} // a cluster's Series is empty
	p := sim.PoolSummary{Name: "pool0", Router: sim.LeastOutstanding}
	for i := range n {
		p.Replicas = append(p.Replicas, sim.Summary{FirstArrival: 10, Makespan: 100,
			KV: sim.KVStats{TotalBlocks: 100, Series: []sim.KVPoint{{T: 10, Used: 10 * (i + 1)}, {T: 60, Used: 0}}}})
	}
	r.Result.Pools = []sim.PoolSummary{p}
	return r
}

// A cluster run's summary has no KV series of its own: its KV panel drew
// nothing, while one replica's run got one. It draws one line per replica
// when they are few, else their mean and their max.
func TestKVClusterLines(t *testing.T) {
	d, err := Build("t", &Inputs{Runs: []*Run{clusterRun(2)}})
	if err != nil {
		t.Fatal(err)
	}
	if figureSVG(d, "kv-utilization") == "" {
		t.Error("a cluster run has no KV figure")
	}
	few := kvLines(clusterRun(2))
	if len(few) != 2 || few[0].label != "replica 1" || few[1].label != "replica 2" {
		t.Fatalf("2 replicas: lines %+v", few)
	}
	if p := few[1].pts[0]; p.X != 0 || p.Y != 20 {
		t.Errorf("replica 2 starts at %+v: want {0 20} (s since first arrival, %%)", p)
	}
	many := kvLines(clusterRun(maxKVLines + 2))
	if len(many) != 2 || many[0].label != "mean of 10 replicas" || many[1].label != "max of 10 replicas" {
		t.Fatalf("10 replicas: lines labelled %q, %q", many[0].label, many[len(many)-1].label)
	}
	// At 20 s after the first arrival every replica still holds its blocks:
	// 10, 20, …, 100 %, whose mean is 55 % and max 100 %.
	for i, want := range []float64{55, 100} {
		got := -1.0
		for _, p := range many[i].pts {
			if p.X <= 20 {
				got = p.Y
			}
		}
		if got != want {
			t.Errorf("%s at 20 s: %v%%, want %v%%", many[i].label, got, want)
		}
	}
	if last := many[0].pts[len(many[0].pts)-1]; last.Y != 0 || last.X < 50 {
		t.Errorf("mean ends at %+v: want 0%% after 50 s", last)
	}
}
