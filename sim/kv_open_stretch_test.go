package sim

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestKVWindowOpensInsideStretch: the window can open while a skipped
// stretch is under way; its blocks then grow evenly over the stretch, so
// the window counts what they were at its opening, not what they reach at
// the stretch's end. One sequence at a time: w0 (10 + 3000 tokens, a
// warm-up row) decodes to 33 s with w1 waiting, so a, arriving at 1 s,
// changes nothing and the stretch runs past it. w0 holds 7 blocks at 1 s
// and 189 at 33 s: skipping reports what stepping does.
func TestKVWindowOpensInsideStretch(t *testing.T) {
	w0, w1 := req("w0", 0, 10, 3000), req("w1", 0, 10, 2)
	w0.Warmup, w1.Warmup = true, true
	reqs := []*traces.Request{w0, w1, req("a", 1000, 10, 2)}
	p := policy(t, Continuous)
	p.MaxNumSeqs = 1
	var sums [2]*Summary
	for i, noSkip := range []bool{false, true} {
		sums[i], _ = mustRun(t, testConfig(p, 1000, noSkip), reqs)
	}
	skip, step := sums[0], sums[1]
	if skip.Stretches == 0 {
		t.Fatalf("no stretches with skipping on")
	}
	if math.Abs(skip.KV.MeanUsed-step.KV.MeanUsed) > 0.01*step.KV.MeanUsed || skip.KV.MaxUsed != step.KV.MaxUsed {
		t.Errorf("KV mean %v blocks, max %d skipping; %v, %d stepping", skip.KV.MeanUsed, skip.KV.MaxUsed, step.KV.MeanUsed, step.KV.MaxUsed)
	}
	if a, b := skip.KV.Series[0], step.KV.Series[0]; a.Used > b.Used+1 {
		t.Errorf("KV series opens with %+v skipping, %+v stepping", a, b)
	}
}
