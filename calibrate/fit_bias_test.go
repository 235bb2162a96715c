package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/servesim/servesim/traces"
)

// noisyRun is a run whose requests a one-client engine serves one at a
// time: each prefill takes 2 ms + 0.1 ms per prompt token and each decode
// step 5 ms, every step times (1 + noise·N(0,1)).
func noisyRun(kind string, prompts []int, out int, t0 int64, noise float64, rng *rand.Rand) (*RunResult, int64) {
	spec := RunSpec{Name: kind + "-c1", Kind: kind, Concurrency: 1, Outputs: []int{out}, Requests: len(prompts), Repeat: 1}
	t := t0
	var rows []*traces.Request
	for i, p := range prompts {
		r := &traces.Request{}
		r.Reset()
		r.ID = fmt.Sprintf("%s/%d", spec.Name, i)
		r.PromptTokens, r.OutputTokens, r.UsagePrompt, r.UsageOutput = int32(p), int32(out), int32(p), int32(out)
		send := t + 1e6
		r.Arrival, r.ScheduledSend, r.ActualSend = send, send, send
		t = send
		for j := range out {
			step := 5e6
			if j == 0 {
				step = 2e6 + 1e5*float64(p)
			}
			t += int64(step * math.Max(1+noise*rng.NormFloat64(), 0.3))
			r.TokenTimes = append(r.TokenTimes, t)
		}
		r.FirstToken, r.LastToken, r.HTTPStatus, r.FinishReason = r.TokenTimes[0], t, 200, "length"
		rows = append(rows, r)
	}
	res := &RunResult{Spec: spec, Rows: rows}
	res.Summary = Summarize(rows)
	return res, t + 50e6
}

// Relative-error weights must not bias the fit: weighing each step by
// its own observed time gives the steps that happened to run slow less
// say than those that ran fast, and the fitted times come out low by
// about twice the relative noise variance (7–8% here). Averaged over
// seeds, the predicted prefill (main fit, last held-out fold) and decode
// step (single-step check) must be within 3% of the truth: absolute-error
// fits of the same steps run up to 2% low on the prefill too (trimming,
// 32 prefill steps a seed), which weighting does not cause.
func TestRelativeFitIsNotBiasedByNoise(t *testing.T) {
	const seeds, noise, tol = 100, 0.2, 0.03
	prompts := []int{32, 64, 128, 256, 384, 512, 96, 192}
	prefill := Observation{PrefillTokens: 256, PrefillAttn: 256 * 256, FromIdle: true}
	decode := Observation{DecodeSeqs: 1, DecodeContext: 300}
	wantPrefill, wantDecode := 2e-3+1e-4*256, 5e-3
	var main, fold, single float64
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 55))
		var runs []*RunResult
		t0 := int64(0)
		for _, kind := range []string{KindPrefill, KindDecode, KindDecode, KindPrefill} {
			var r *RunResult
			r, t0 = noisyRun(kind, prompts, 24, t0, noise, rng)
			runs = append(runs, r)
		}
		a, err := Analyze(runs, AnalyzeOptions{Relative: true, Linear: true})
		if err != nil {
			t.Fatal(err)
		}
		if a.HeldOutSteps == nil {
			t.Fatalf("seed %d: no single-step check: %v", seed, a.HeldOutStepsErr)
		}
		predict := func(f *Fit, o Observation) float64 { return f.Step.Predict(nil, []Observation{o})[0] }
		main += predict(a.Fit, prefill) / wantPrefill / seeds
		fold += predict(a.HeldOut.Fit, prefill) / wantPrefill / seeds
		single += predict(a.HeldOutSteps.Fit, decode) / wantDecode / seeds
	}
	t.Logf("%.0f%% noise, mean predicted/true over %d seeds: main fit prefill %.4f, last fold prefill %.4f, single-step decode %.4f",
		100*noise, seeds, main, fold, single)
	for name, r := range map[string]float64{"main fit's prefill": main, "last held-out fold's prefill": fold, "single-step check's decode": single} {
		if math.Abs(r-1) > tol {
			t.Errorf("%s: mean predicted/true %.4f, want within %.1f%% of 1", name, r, 100*tol)
		}
	}
}
