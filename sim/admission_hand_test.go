package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

func toMs(ns int64) float64 { return float64(ns) / 1e6 }

// Two requests that reach the scheduler during the same long step both
// join the next step: the step after the busy one must not start before
// the second request, which arrived while the first was handed over, is in.
func TestAdmissionDelayJoinsArrivalsOfOneStep(t *testing.T) {
	tm := Linear{C0: 10e-3, Cp: 1e-3, Cd: 1e-3, Admit: Admission{Delay: 0.005}}
	for _, noSkip := range []bool{true, false} {
		cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 1000, Step: tm, Devices: 1, NoSkip: noSkip}
		_, w := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 1000, 2), // one 1010 ms prefill step
			req("B", 100, 10, 2), // reaches the scheduler at 105 ms
			req("C", 200, 10, 2), // reaches the scheduler at 205 ms
		})
		b, c := w.byID["B"], w.byID["C"]
		// Step 2 at 1010 ms: A's decode + B and C's prefills (20 tokens): 31 ms.
		if b.StartTime != 1010e6 || c.StartTime != 1010e6 || c.FirstToken != 1041e6 {
			t.Errorf("noSkip=%v: B start %.0f ms, C start %.0f ms, C first %.0f ms; want 1010, 1010, 1041",
				noSkip, toMs(b.StartTime), toMs(c.StartTime), toMs(c.FirstToken))
		}
	}
}

// The same through an event-skip jump with a static policy: the jump over
// A's decodes crosses B's and C's arrivals, and the batch after it holds
// both.
func TestAdmissionDelayStaticBatchAfterJump(t *testing.T) {
	tm := Linear{C0: 10e-3, Cp: 1e-3, Cd: 1e-3, Admit: Admission{Delay: 0.005}}
	var got [2][2]int64
	for i, noSkip := range []bool{true, false} {
		cfg := Config{Policy: PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}, BlockSize: 16, TotalBlocks: 1000, Step: tm, Devices: 1, NoSkip: noSkip}
		_, w := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 10, 11), // batch {A} at 20 ms, first 40 ms, last 150 ms
			req("B", 60, 10, 11),
			req("C", 100, 10, 11),
		})
		got[i] = [2]int64{w.byID["B"].StartTime, w.byID["C"].StartTime}
	}
	for i, g := range got {
		if g[0] != 150e6 || g[1] != 150e6 {
			t.Errorf("noSkip=%v: B starts %.0f ms, C starts %.0f ms; want both 150 (a full batch of 2 at A's completion)", i == 0, toMs(g[0]), toMs(g[1]))
		}
	}
}

// A request's KV holds prompt + output − 1 tokens at most (the last token
// is sampled, never fed back), so one that fills the device exactly is
// served.
func TestRejectOnlyWhatNeverFits(t *testing.T) {
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 1, Step: testTimer, Devices: 1, CheckInvariants: true}
	sum, w := mustRun(t, cfg, []*traces.Request{
		req("A", 0, 16, 1),   // 16 tokens of KV: one block
		req("B", 100, 10, 7), // 10 + 6 = 16 tokens of KV: one block
	})
	for _, id := range []string{"A", "B"} {
		if r := w.byID[id]; r.Error != "" {
			t.Errorf("%s: %s", id, r.Error)
		}
	}
	if sum.Rejected != 0 {
		t.Errorf("rejected %d of 2; both fit in the one block", sum.Rejected)
	}
}

// With Admission.Lock, a request that arrives during a pure-decode stretch
// the policy reports as unwatched (the waiting head is blocked on KV
// blocks) needs the stretch's step boundaries to get through the lock, so
// skipping stops there and agrees with stepping.
func TestLockArrivalDuringBlockedStretch(t *testing.T) {
	p := policy(t, Continuous)
	p.MaxNumSeqs = 3
	tm := Linear{C0: 10e-3, Cp: 1e-3, Cd: 1e-3, Admit: Admission{Lock: true}}
	var firsts [2][2]int64
	for i, noSkip := range []bool{true, false} {
		cfg := Config{Policy: p, BlockSize: 16, TotalBlocks: 10, Step: tm, Devices: 1, NoSkip: noSkip, CheckInvariants: true}
		_, w := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 100, 40), // prefill 0→110, 39 decodes of 11 ms: done at 539
			req("B", 50, 60, 2),  // waiting from 121, blocked: needs 4 blocks, 3 free
			req("C", 200, 10, 2), // passed over once, waits behind B
		})
		firsts[i] = [2]int64{w.byID["B"].FirstToken, w.byID["C"].FirstToken}
	}
	// At 539 B and C prefill together (70 tokens, 80 ms): both first at 619.
	for i, f := range firsts {
		if f[0] != 619e6 || f[1] != 619e6 {
			t.Errorf("noSkip=%v: B first %.0f ms, C first %.0f ms; want 619 and 619", i == 0, toMs(f[0]), toMs(f[1]))
		}
	}
}

// Metric definitions by hand: output 1 (no TPOT), prompt 0 (taken as 1),
// busy time, device-seconds and energy.
func TestMetricsByHand(t *testing.T) {
	for _, noSkip := range []bool{true, false} {
		cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 100, Step: testTimer, Devices: 2, NoSkip: noSkip,
			CheckInvariants: true, Power: func(u float64) float64 { return 100 + 600*u }}
		sum, w := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 10, 1),    // 0→20: TTFT = E2E = 20 ms, no TPOT
			req("B", 100, 0, 3),   // prompt 1: 100→111 first, +2×11 → 133
			req("C", 1000, 10, 5), // 1000→1020, 4×11 → 1064
		})
		if a := w.byID["A"]; a.FirstToken != 20e6 || a.LastToken != 20e6 {
			t.Errorf("A %d %d", a.FirstToken, a.LastToken)
		}
		if b := w.byID["B"]; b.FirstToken != 111e6 || b.LastToken != 133e6 || b.UsagePrompt != 1 {
			t.Errorf("B %d %d %d", b.FirstToken, b.LastToken, b.UsagePrompt)
		}
		if sum.TPOT.N != 2 || abs(int64(sum.TPOT.Mean*1e9)-11e6) > 1 || sum.Makespan != 1.064 {
			t.Errorf("TPOT %+v makespan %v", sum.TPOT, sum.Makespan)
		}
		busy := 0.020 + 0.033 + 0.064
		if d := sum.BusySeconds - busy; d > 1e-9 || d < -1e-9 {
			t.Errorf("busy %v want %v", sum.BusySeconds, busy)
		}
		wantE := 2 * (100 + 600*busy/1.064) * 1.064
		if d := sum.EnergyJoules - wantE; d > 1e-6 || d < -1e-6 || sum.DeviceSeconds != 2*1.064 {
			t.Errorf("energy %v want %v, device-s %v", sum.EnergyJoules, wantE, sum.DeviceSeconds)
		}
		if sum.TTFT.P50 != 0.020 || sum.TTFT.P99 != 0.020 || sum.E2E.Max != 0.064 {
			t.Errorf("TTFT %+v E2E %+v", sum.TTFT, sum.E2E)
		}
	}
}
