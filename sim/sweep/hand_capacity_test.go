package sweep

import (
	"context"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// constStep times every step the same, so latencies can be worked out by
// hand.
type constStep float64

func (c constStep) StepSeconds(sim.Batch) float64 { return float64(c) }

// handTrace is n requests of a 10-token prompt and out output tokens,
// arriving one second apart.
func handTrace(n int, out int32) *Trace {
	t := &Trace{Name: "hand"}
	for i := range n {
		t.Reqs = append(t.Reqs, traces.Request{ID: "r", Arrival: int64(i) * 1e9, PromptTokens: 10, OutputTokens: out})
	}
	t.nAll = int64(n)
	t.Span = float64(n - 1)
	t.Rate = float64(n-1) / t.Span
	return t
}

func handEvaluator(t *testing.T, body string, step float64, tr *Trace) *evaluator {
	t.Helper()
	_, s, err := writeSpec(t, `base = "base.toml"`+"\n"+body)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	ev := &evaluator{step: constStep(step)}
	ev.reset(tr, s, &ex.Configs[0])
	return ev
}

// One request at a time, 0.1 s each, arrivals 1/s apart at scale 1: at
// scale s request i (from 0) waits i·(0.1 − 1/s) when s > 10, so with 100
// requests P99 TTFT ≤ 0.1 + 98·0.01 s holds up to s = 1/0.09, and the
// search ends within its 2% below that.
func TestCapacityByHand(t *testing.T) {
	ev := handEvaluator(t, "[batch]\nmax_num_seqs = 1\n[slo]\nttft_p99_ms = 1080\n", 0.1, handTrace(100, 1))
	best, note, err := ev.capacity(context.Background())
	if err != nil || best == nil || note != "" {
		t.Fatalf("best %v note %q err %v", best, note, err)
	}
	want := 1 / 0.09
	if best.scale > want || best.scale < want/(1+ev.spec.Search.Tolerance) {
		t.Errorf("capacity %g, want within [%g, %g]", best.scale, want/(1+ev.spec.Search.Tolerance), want)
	}
}

// A TPOT limit so lenient that limit × tokens leaves int64 still holds.
func TestHugeTPOTLimitHolds(t *testing.T) {
	ev := handEvaluator(t, "[slo]\ntpot_p99_ms = 1e10\n", 0.01, handTrace(10, 1000))
	p, err := ev.run(context.Background(), 1, false)
	if err != nil || !p.complete() {
		t.Fatal(err)
	}
	if !p.ok || p.good != 10 {
		t.Errorf("TPOT P99 %g s under a limit of 1e7 s: ok %v, %d of 10 requests good", p.sum.TPOT.P99, p.ok, p.good)
	}
}

// A limit past int64 nanoseconds is a lenient limit, not an unset one: a
// rejected request still breaks it.
func TestHugeTTFTLimitStillCountsRejections(t *testing.T) {
	tr := handTrace(10, 1)
	tr.Reqs[3].PromptTokens = 100000 // over max_model_len: rejected
	ev := handEvaluator(t, "[slo]\nttft_p99_ms = 1e13\n", 0.01, tr)
	p, err := ev.run(context.Background(), 1, false)
	if err != nil || !p.complete() {
		t.Fatal(err)
	}
	if p.ok || p.sum.Rejected != 1 {
		t.Errorf("1 of 10 requests rejected (%d), P99 TTFT infinite: ok %v, want false", p.sum.Rejected, p.ok)
	}
}

// A limit under a nanosecond, which the simulator's clock cannot resolve,
// is refused rather than read as unset.
func TestSubNanosecondLimitRefused(t *testing.T) {
	_, _, err := writeSpec(t, `base = "base.toml"`+"\n[slo]\nttft_p99_ms = 1e-7\n")
	if err == nil || !strings.Contains(err.Error(), "slo.ttft_p99_ms") {
		t.Fatalf("err = %v, want one naming slo.ttft_p99_ms", err)
	}
}
