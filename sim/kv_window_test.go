package sim

import (
	"math"
	"reflect"
	"strings"
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

// TestWarmupAfterWindowLeftOut: the window ends at the last measured
// completion, and a warm-up row still decoding then is measured up to it
// only: the engine was busy all the window, its KV occupancy stays within
// its peak, and the figures are the same however long the warm-up row
// goes on after it. In Run, and in a cluster on the replica the warm-up
// row has to itself, where a skipped stretch runs past the window's end:
// the blocks it allocates as it goes are taken to grow evenly, so its KV
// occupancy up to the end is that of the stretch's average growth.
func TestWarmupAfterWindowLeftOut(t *testing.T) {
	reqs := func(warmOut int32) []*traces.Request {
		w := req("w", 0, 10, warmOut)
		w.Warmup = true
		return []*traces.Request{w, req("a", 100, 10, 20)}
	}
	check := func(t *testing.T, name string, short, long Summary, kvTol float64) {
		t.Helper()
		for _, s := range []Summary{short, long} {
			if math.Abs(s.BusySeconds-s.Makespan) > 1e-9 || s.KV.MeanUsed > float64(s.KV.MaxUsed) {
				t.Errorf("%s: busy %v s of a %v s window, KV mean %v blocks, max %d; want busy all the window, mean ≤ max",
					name, s.BusySeconds, s.Makespan, s.KV.MeanUsed, s.KV.MaxUsed)
			}
		}
		if short.Makespan != long.Makespan || math.Abs(short.BusySeconds-long.BusySeconds) > 1e-9 ||
			math.Abs(short.KV.MeanUsed-long.KV.MeanUsed) > kvTol || short.KV.MaxUsed != long.KV.MaxUsed {
			t.Errorf("%s: window %v s, busy %v s, KV mean %v, max %d with the warm-up row 60 tokens long; %v s, %v s, %v, %d 600 tokens long",
				name, short.Makespan, short.BusySeconds, short.KV.MeanUsed, short.KV.MaxUsed,
				long.Makespan, long.BusySeconds, long.KV.MeanUsed, long.KV.MaxUsed)
		}
	}
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		short, _ := mustRun(t, cfg, reqs(60))
		long, _ := mustRun(t, cfg, reqs(600))
		check(t, "Run", *short, *long, 1e-9)
		cshort, _ := mustRunCluster(t, onePool(2, RoundRobin, cfg), newSliceReader(reqs(60)))
		clong, _ := mustRunCluster(t, onePool(2, RoundRobin, cfg), newSliceReader(reqs(600)))
		kvTol := 1e-9
		if !noSkip {
			kvTol = 0.05
		}
		check(t, "replica 0", cshort.Pools[0].Replicas[0], clong.Pools[0].Replicas[0], kvTol)
	})
}

// TestRejectionAtArrival: a request that can never run is rejected as it
// arrives, whatever the engine is doing then, and takes no engine time: the
// window ends at the last completion, as a live run's ends at its last
// token. One device serves a (done at 31 ms), then decodes the warm-up row
// w in one static stretch to 3.3 s; r (over max_model_len) arrives at 1 s,
// during it. Skipping and stepping report the same summary, with the
// window ending at a's completion.
func TestRejectionAtArrival(t *testing.T) {
	w := req("w", 0, 10, 300)
	w.Warmup = true
	reqs := []*traces.Request{req("a", 0, 10, 2), w, req("r", 1000, 300, 100)}
	var sums [2]*Summary
	for i, noSkip := range []bool{false, true} {
		cfg := testConfig(PolicyConfig{Name: Serial}, 100, noSkip)
		cfg.MaxModelLen = 320
		sum, rows := mustRun(t, cfg, reqs)
		if r, w := rows.byID["r"], rows.byID["w"]; !strings.HasPrefix(r.Error, "rejected: ") || w.Error != "" {
			t.Fatalf("noSkip=%v: r: error %q, want rejected; w: error %q, want served", noSkip, r.Error, w.Error)
		}
		if end := rows.byID["a"].LastToken; sum.Makespan != float64(end)/1e9 || sum.Rejected != 1 || sum.Completed != 1 {
			t.Errorf("noSkip=%v: window %v s, %d rejected, %d completed; want %v s, to a's last token, r rejected and a completed",
				noSkip, sum.Makespan, sum.Rejected, sum.Completed, float64(end)/1e9)
		}
		sums[i] = sum
	}
	if sums[0].Stretches == 0 {
		t.Errorf("no stretches with skipping on")
	}
	if a, b := comparable(*sums[0]), comparable(*sums[1]); !reflect.DeepEqual(a, b) {
		t.Errorf("summaries differ:\nskipping %+v\nstepping %+v", a, b)
	}
}
