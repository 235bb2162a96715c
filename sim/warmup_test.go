package sim

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Warm-up rows load the engine but stay out of every figure, as a live
// run leaves them out: the same requests after two warm-up rows report
// the counts, tokens, window and latencies they report alone.
func TestWarmupRowsOutsideSummary(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		measured := func() []*traces.Request {
			return []*traces.Request{req("a", 10000, 100, 20), req("b", 10500, 50, 30)}
		}
		w0, w1 := req("w0", 0, 400, 50), req("w1", 1, 400, 50)
		w0.Warmup, w1.Warmup = true, true
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		alone, _ := mustRun(t, cfg, measured())
		with, _ := mustRun(t, cfg, append([]*traces.Request{w0, w1}, measured()...))
		if with.Requests != 2 || with.Completed != 2 || with.InputTokens != 150 || with.OutputTokens != 50 {
			t.Errorf("with warm-up rows: %d requests, %d completed, %d/%d tokens; want 2, 2, 150/50",
				with.Requests, with.Completed, with.InputTokens, with.OutputTokens)
		}
		if with.FirstArrival != 10 || with.Makespan != alone.Makespan || with.OutputTokPerSec != alone.OutputTokPerSec {
			t.Errorf("window from %v s, %v s long, %v tok/s; want from 10 s, %v s, %v tok/s as without them",
				with.FirstArrival, with.Makespan, with.OutputTokPerSec, alone.Makespan, alone.OutputTokPerSec)
		}
		if with.BusySeconds != alone.BusySeconds || with.TTFT != alone.TTFT || with.KV.MeanUsed != alone.KV.MeanUsed {
			t.Errorf("busy %v s, TTFT %+v, KV mean %v; want %v s, %+v, %v as without them",
				with.BusySeconds, with.TTFT, with.KV.MeanUsed, alone.BusySeconds, alone.TTFT, alone.KV.MeanUsed)
		}
	})
}

// A warm-up row's prefix-cache lookups and preemptions stay out of the
// figures too: the hit rate is the measured requests' own.
func TestWarmupLookupsAndPreemptionsOutsideSummary(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		cfg.PrefixCaching = true
		// w looks up one block (the second is its last, always computed)
		// and misses; a, arriving after it finished, finds that block.
		w := req("w", 0, 32, 2, 1, 2)
		w.Warmup = true
		with, _ := mustRun(t, cfg, []*traces.Request{w, req("a", 1000, 32, 2, 1, 2)})
		if with.PrefixLookups != 1 || with.PrefixHits != 1 || with.PrefixHitRate != 1 {
			t.Errorf("prefix lookups %d, hits %d, rate %v; want a's own: 1, 1, 1", with.PrefixLookups, with.PrefixHits, with.PrefixHitRate)
		}
		// Two warm-up rows that do not fit together: the newer is preempted.
		small := testConfig(policy(t, Continuous), 3, noSkip)
		w0, w1 := req("w0", 0, 16, 20), req("w1", 0, 16, 20)
		w0.Warmup, w1.Warmup = true, true
		s, _ := mustRun(t, small, []*traces.Request{w0, w1, req("b", 5000, 16, 2)})
		if s.Preemptions != 0 {
			t.Errorf("%d preemptions of warm-up rows counted", s.Preemptions)
		}
	})
}

// A step under way when the window opens (a warm-up row decoding when the
// first measured request arrives, mid-step) counts from the opening: the
// engine, busy from before a arrives until a ends, was busy all the window.
func TestWindowOpensMidStep(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		w := req("w", 0, 10, 50)
		w.Warmup = true
		sum, rows := mustRun(t, testConfig(policy(t, Continuous), 100, noSkip), []*traces.Request{w, req("a", 500, 10, 20)})
		a := rows.byID["a"]
		if want := float64(a.LastToken-a.Arrival) / 1e9; math.Abs(sum.BusySeconds-want) > 1e-9 || math.Abs(sum.Makespan-want) > 1e-9 {
			t.Errorf("busy %v s over a %v s window, want busy all of it, %v s", sum.BusySeconds, sum.Makespan, want)
		}
	})
}
