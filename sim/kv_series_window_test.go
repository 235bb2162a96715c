package sim

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestKVSeriesInsideWindow: the KV occupancy series is a figure like the
// others, so warm-up rows' occupancy outside the window stays out of it:
// every point lies within the window and none is above the window's peak.
// Two warm-up rows of 400 tokens hold 50-odd blocks before the measured
// requests (under 10 blocks) arrive at 10 s; a third, arriving with them,
// decodes long after the last of them completes.
func TestKVSeriesInsideWindow(t *testing.T) {
	reqs := func() []*traces.Request {
		w0, w1, w2 := req("w0", 0, 400, 50), req("w1", 1, 400, 50), req("w2", 10000, 10, 600)
		w0.Warmup, w1.Warmup, w2.Warmup = true, true, true
		return []*traces.Request{w0, w1, w2, req("a", 10000, 100, 20), req("b", 10500, 50, 30)}
	}
	check := func(t *testing.T, name string, s Summary) {
		t.Helper()
		if len(s.KV.Series) == 0 {
			t.Fatalf("%s: no KV series", name)
		}
		end := s.FirstArrival + s.Makespan
		for _, p := range s.KV.Series {
			if p.T < s.FirstArrival-1e-12 || p.T > end+1e-12 || p.Used > s.KV.MaxUsed {
				t.Errorf("%s: KV point %+v outside the window [%v, %v] s or above its peak %d blocks",
					name, p, s.FirstArrival, end, s.KV.MaxUsed)
			}
		}
	}
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		sum, _ := mustRun(t, cfg, reqs())
		check(t, "Run", *sum)
		cs, _ := mustRunCluster(t, onePool(2, RoundRobin, cfg), newSliceReader(reqs()))
		for i, r := range cs.Pools[0].Replicas {
			check(t, "replica "+string(rune('0'+i)), r)
		}
	})
}

// TestKVSeriesOnlyWarmup: with nothing but warm-up rows there is no
// window, so no KV figure: no series and no peak.
func TestKVSeriesOnlyWarmup(t *testing.T) {
	w := req("w", 0, 400, 50)
	w.Warmup = true
	sum, _ := mustRun(t, testConfig(policy(t, Continuous), 100, false), []*traces.Request{w})
	if sum.Requests != 0 || len(sum.KV.Series) != 0 || sum.KV.MaxUsed != 0 || sum.KV.MaxUtil != 0 {
		t.Errorf("only warm-up rows: %d requests, KV series %v, peak %d blocks (%v); want none",
			sum.Requests, sum.KV.Series, sum.KV.MaxUsed, sum.KV.MaxUtil)
	}
}

// TestKVSeriesWarmupAfterWindow: a warm-up row whose batch starts as the
// window closes adds nothing to the series. Token budget, no wait: a
// (10 + 10 tokens, 2 blocks) runs alone and completes at 20 + 9·11 =
// 119 ms, the window's end; w (300 + 20 tokens, a warm-up row arriving
// at 1 ms) waits for a's batch and starts at 119 ms holding 20 blocks,
// within the bucket that holds the end.
func TestKVSeriesWarmupAfterWindow(t *testing.T) {
	reqs := func() []*traces.Request {
		w := req("w", 1, 300, 20)
		w.Warmup = true
		return []*traces.Request{req("a", 0, 10, 10), w}
	}
	p := policy(t, TokenBudget)
	p.TokenBudget, p.MaxWaitMs = 1000, 0
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(p, 100, noSkip)
		check := func(name string, s Summary) {
			t.Helper()
			end := s.FirstArrival + s.Makespan
			for _, pt := range s.KV.Series {
				if pt.T > end+1e-12 || pt.Used > s.KV.MaxUsed {
					t.Errorf("%s: KV point %+v after the window's end %v s or above its peak %d blocks", name, pt, end, s.KV.MaxUsed)
				}
			}
		}
		sum, _ := mustRun(t, cfg, reqs())
		check("Run", *sum)
		cs, _ := mustRunCluster(t, onePool(1, RoundRobin, cfg), newSliceReader(reqs()))
		check("cluster", cs.Pools[0].Replicas[0])
	})
}

// TestKVSeriesCarriesUsageIntoBucket: a point is the most blocks referenced
// at once within its bucket, so usage carried into it counts, not only
// what was set inside it. Steps take 10.25 ms plus 1 ms per token: a
// (100 + 2 tokens) and b (10 + 5 tokens) prefill together until
// 120.25 ms, referencing 8 blocks; a completes after one decode step at
// 132.5 ms, leaving b's 1 block. The 8 blocks are still referenced at the
// start of the bucket at 132 ms.
func TestKVSeriesCarriesUsageIntoBucket(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		cfg.Step = Linear{C0: 10.25e-3, Cp: 1e-3, Cd: 1e-3}
		sum, w := mustRun(t, cfg, []*traces.Request{req("a", 0, 100, 2), req("b", 0, 10, 5)})
		if got := w.byID["a"].LastToken; got != 132500*1000 {
			t.Fatalf("a completed at %d ns, want 132.5 ms", got)
		}
		found := false
		for _, pt := range sum.KV.Series {
			if math.Abs(pt.T-0.132) < 1e-9 {
				found = true
				if pt.Used != sum.KV.MaxUsed {
					t.Errorf("KV point %+v: want the %d blocks referenced when its bucket starts; series %v", pt, sum.KV.MaxUsed, sum.KV.Series)
				}
			}
		}
		if !found {
			t.Errorf("no KV point at 0.132 s: %v", sum.KV.Series)
		}
	})
}
