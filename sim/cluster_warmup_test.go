package sim

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestClusterWarmupReplicasMeasuredOverWindow: every replica is held, and
// measured, over the cluster's window, which opens at the first request
// that is not a warm-up row, whichever replica the router sent it to.
// Round robin over three replicas: replica 0 gets only warm-up rows (w0,
// w3), replica 1 a warm-up row and a measured one (w1, b), replica 2
// measured ones (a, which opens the window at 0.5 s, and x). Replicas 0
// and 1 run the same work, busy from before the window opens until w0
// and w1 end, so both report that busy time and the same KV occupancy.
func TestClusterWarmupReplicasMeasuredOverWindow(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		warm := func(r *traces.Request) *traces.Request { r.Warmup = true; return r }
		reqs := []*traces.Request{
			warm(req("w0", 0, 10, 100)), warm(req("w1", 0, 10, 100)), req("a", 500, 10, 2),
			warm(req("w3", 800, 10, 2)), req("b", 900, 10, 2), req("x", 1500, 10, 2),
		}
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		cfg.Power = func(u float64) float64 { return 100 + 500*u }
		sum, w := mustRunCluster(t, onePool(3, RoundRobin, cfg), newSliceReader(reqs))
		checkAggregate(t, sum)
		open := w.byID["a"].Arrival
		if sum.FirstArrival != float64(open)/1e9 || sum.Requests != 3 || sum.Completed != 3 {
			t.Fatalf("window from %v s, %d requests, %d completed; want from a's arrival, a, b and x", sum.FirstArrival, sum.Requests, sum.Completed)
		}
		reps := sum.Pools[0].Replicas
		for i, id := range []string{"w0", "w1"} {
			r := reps[i]
			if want := float64(w.byID[id].LastToken-open) / 1e9; math.Abs(r.BusySeconds-want) > 1e-9 {
				t.Errorf("replica %d: busy %v s, want %v s: from the window's opening until %s ends", i, r.BusySeconds, want, id)
			}
			if want := 100 + 500*r.BusySeconds/sum.Makespan; math.Abs(r.EnergyJoules-want*sum.Makespan) > 1e-6 {
				t.Errorf("replica %d: energy %v J, want %v W over the window", i, r.EnergyJoules, want)
			}
		}
		// The same up to the trapezoid rule within stretches.
		k0, k1 := reps[0].KV, reps[1].KV
		if k0.MaxUsed != k1.MaxUsed || math.Abs(k0.MeanUsed-k1.MeanUsed) > 0.05 || k0.MeanUsed > float64(k0.MaxUsed) {
			t.Errorf("KV occupancy of replica 0 (warm-up rows only): mean %v, max %d blocks; of replica 1: %v, %d; want the same",
				k0.MeanUsed, k0.MaxUsed, k1.MeanUsed, k1.MaxUsed)
		}
		if reps[0].Requests != 0 || reps[0].Completed != 0 || reps[0].E2E.N != 0 || reps[0].DeviceSeconds != sum.Makespan {
			t.Errorf("replica 0: %d requests, %d completed, %d latencies, %v device-s; want none measured, held over the window",
				reps[0].Requests, reps[0].Completed, reps[0].E2E.N, reps[0].DeviceSeconds)
		}
	})
}
