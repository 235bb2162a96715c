package sim

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestClusterIdleReplicaKVOccupancy: a replica that finished its work
// early holds no KV blocks while idle until the cluster's window closes.
// Round robin over two replicas: replica 0 serves a in 0.12 s, replica 1
// decodes b for 3.3 s. Replica 0's occupancy integrated over the window
// (mean × makespan) is a's alone, as Run measures it over a's own window.
func TestClusterIdleReplicaKVOccupancy(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		a, b := req("a", 0, 100, 2), req("b", 0, 10, 300)
		sum, _ := mustRunCluster(t, onePool(2, RoundRobin, cfg), newSliceReader([]*traces.Request{a, b}))
		alone, _ := mustRun(t, cfg, []*traces.Request{a})
		r := sum.Pools[0].Replicas[0]
		got, want := r.KV.MeanUsed*r.Makespan, alone.KV.MeanUsed*alone.Makespan
		if math.Abs(got-want) > 1e-9 || r.KV.MeanUsed > float64(r.KV.MaxUsed) {
			t.Errorf("replica 0: KV mean %v blocks over %v s (%v block·s), max %d; want a's %v block·s",
				r.KV.MeanUsed, r.Makespan, got, r.KV.MaxUsed, want)
		}
	})
}
