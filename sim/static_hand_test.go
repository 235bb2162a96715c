package sim

import (
	"errors"
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A fixed batch of 2 with a 5 ms window, on 2 devices of 100 W idle and
// 400 W at full use, worked by hand:
//
//	A (0 ms, 10+2) waits; B (2 ms, 5+3) fills the batch at 2 ms.
//	prefill 10+15 = 25 ms → 27; decode A,B 12 → 39 (A done); B 11 → 50.
//	C (3 ms, 4+1) has waited past 5 ms: alone, 10+4 = 14 → 64.
//
// Makespan 64 ms, busy 62 ms, device-seconds 2 × 0.064, energy
// 2 × (100 × 0.064 + 300 × 0.062) = 50 J. Each request reserves one
// 16-token block: 2 used from 2 to 39 ms, 1 to 64 ms: 99 block·ms.
func TestFixedBatchRunFiguresByHand(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 5}, 10, noSkip)
		cfg.Devices = 2
		cfg.Power = func(u float64) float64 { return 100 + 300*u }
		sum, w := mustRun(t, cfg, []*traces.Request{req("A", 0, 10, 2), req("B", 2, 5, 3), req("C", 3, 4, 1)})
		for id, want := range map[string][2]int64{"A": {2 * ms, 39 * ms}, "B": {2 * ms, 50 * ms}, "C": {50 * ms, 64 * ms}} {
			if r := w.byID[id]; r.StartTime != want[0] || r.LastToken != want[1] {
				t.Errorf("%s: start %d, last %d ns; want %d, %d", id, r.StartTime, r.LastToken, want[0], want[1])
			}
		}
		near := func(name string, got, want float64) {
			if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
		near("Makespan", sum.Makespan, 0.064)
		near("BusySeconds", sum.BusySeconds, 0.062)
		near("Utilization", sum.Utilization, 62.0/64)
		near("DeviceSeconds", sum.DeviceSeconds, 0.128)
		near("EnergyJoules", sum.EnergyJoules, 50)
		near("KV.MeanUsed", sum.KV.MeanUsed, 99.0/64)
		near("KV.MeanUtil", sum.KV.MeanUtil, 99.0/64/10)
		if sum.KV.MaxUsed != 2 {
			t.Errorf("KV.MaxUsed = %d, want 2", sum.KV.MaxUsed)
		}
		near("OutputTokPerSec", sum.OutputTokPerSec, 6/0.064)
	})
}

// Blocks of 16, 2 in all: A (20+5: 2 blocks) and B (10+2: 1 block) form
// batch 1 at 2 ms and need 3; C, queued behind them, is what was queued.
func TestFixedBatchOOMReportByHand(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 5}, 2, noSkip)
		sum, w, err := run(t, cfg, []*traces.Request{req("A", 0, 20, 5), req("B", 2, 10, 2), req("C", 2, 1, 1), req("D", 9, 1, 1)})
		var oom *OOMError
		if !errors.As(err, &oom) {
			t.Fatalf("err = %v, want an OOM", err)
		}
		want := OOMReport{Batch: 1, Time: 0.002, BatchSize: 2, BatchTokens: 37, BlocksNeeded: 3, FreeBlocks: 2, TotalBlocks: 2, Queued: 1}
		if oom.Report != want {
			t.Errorf("OOM report %+v\nwant %+v", oom.Report, want)
		}
		if sum.Requests != 4 || sum.Completed != 0 {
			t.Errorf("%d requests, %d completed; want 4, 0", sum.Requests, sum.Completed)
		}
		for _, id := range []string{"A", "B", "C", "D"} {
			if r := w.byID[id]; r == nil || r.Error == "" {
				t.Errorf("%s: row %+v, want marked not run", id, r)
			}
		}
	})
}

// A token budget of 30 with a 5 ms window: A (0 ms, 10+5) and B (1 ms,
// 8+4) reserve 27, leaving 3 ≥ 2 (the least a request reserves), so the
// batch waits; C (2 ms, 2+2) would make 31: the batch of A, B is full at
// 2 ms. Prefill 10+18 → 30 ms; three steps of 12 → 66 (B done); A 11 →
// 77; C prefill 12 → 89, decode 11 → 100. Busy 98 of 100 ms.
func TestTokenBudgetRunByHand(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(PolicyConfig{Name: TokenBudget, TokenBudget: 30, MaxWaitMs: 5}, 10, noSkip)
		sum, w := mustRun(t, cfg, []*traces.Request{req("A", 0, 10, 5), req("B", 1, 8, 4), req("C", 2, 2, 2)})
		for id, want := range map[string][3]int64{"A": {2 * ms, 30 * ms, 77 * ms}, "B": {2 * ms, 30 * ms, 66 * ms}, "C": {77 * ms, 89 * ms, 100 * ms}} {
			if r := w.byID[id]; r.StartTime != want[0] || r.FirstToken != want[1] || r.LastToken != want[2] {
				t.Errorf("%s: start %d, first %d, last %d ns; want %v", id, r.StartTime, r.FirstToken, r.LastToken, want)
			}
		}
		if math.Abs(sum.BusySeconds-0.098) > 1e-9 || math.Abs(sum.Makespan-0.1) > 1e-9 {
			t.Errorf("busy %v s over %v s; want 0.098 over 0.1", sum.BusySeconds, sum.Makespan)
		}
	})
}
