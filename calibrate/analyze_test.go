package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// serialRun is a run whose requests the engine serves one at a time, sent
// clients at once: each prefill takes 2 ms + 0.1 ms per prompt token and
// each decode step 5 ms (± 1%, deterministic), so the fit has known
// answers.
func serialRun(kind string, clients int, prompts []int, out int, t0 int64) (*RunResult, int64) {
	return serialRunStep(kind, clients, prompts, out, t0, 5e6)
}

// serialRunStep is serialRun with decode steps of stepNs.
func serialRunStep(kind string, clients int, prompts []int, out int, t0 int64, stepNs float64) (*RunResult, int64) {
	spec := RunSpec{Name: fmt.Sprintf("%s-c%d", kind, clients), Kind: kind, Concurrency: clients, Outputs: []int{out},
		Requests: len(prompts), Repeat: 1}
	jitter := func(i int) float64 { return 1 + 0.01*math.Sin(float64(i)*1.7) }
	t, k := t0, 0
	var rows []*traces.Request
	for i, p := range prompts {
		r := &traces.Request{}
		r.Reset()
		r.ID = fmt.Sprintf("%s/%d", spec.Name, i)
		r.PromptTokens, r.OutputTokens, r.UsagePrompt, r.UsageOutput = int32(p), int32(out), int32(p), int32(out)
		send := t0 // the first clients requests go out together
		if i >= clients {
			send = rows[i-clients].LastToken + 1e6
		}
		r.Arrival, r.ScheduledSend, r.ActualSend = send, send, send
		t = max(t, send)
		for j := range out {
			step := stepNs * jitter(k)
			if j == 0 {
				step = (2e6 + 1e5*float64(p)) * jitter(k)
			}
			k++
			t += int64(step)
			r.TokenTimes = append(r.TokenTimes, t)
		}
		r.FirstToken, r.LastToken, r.HTTPStatus, r.FinishReason = r.TokenTimes[0], t, 200, "length"
		rows = append(rows, r)
	}
	res := &RunResult{Spec: spec, Rows: rows}
	res.Summary = Summarize(rows)
	return res, t + 50e6
}

// Analyze fits the resident-token terms only when the concurrency ramp
// finds a hard slot limit (llama.cpp, Ollama); a ramp that never stalls
// (a paged engine, or one with more slots than the ramp's clients) leaves
// them off, and either way the dense curve finds the steps' costs.
func TestAnalyzeResidentTermsNeedASlotLimit(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	for _, tc := range []struct {
		name      string
		memory    []int // clients of the memory runs
		wantSlots int
	}{
		{"no limit", []int{1}, 0},
		{"one slot", []int{1, 2}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs []*RunResult
			t0 := int64(0)
			for _, kind := range []string{KindPrefill, KindDecode} {
				var r *RunResult
				r, t0 = serialRun(kind, 1, prompts, 24, t0)
				runs = append(runs, r)
			}
			for _, c := range tc.memory {
				var r *RunResult
				r, t0 = serialRun(KindMemory, c, prompts[:2*c], 16, t0)
				runs = append(runs, r)
			}
			a, err := Analyze(runs, AnalyzeOptions{Relative: true})
			if err != nil {
				t.Fatal(err)
			}
			if a.Slots != tc.wantSlots {
				t.Errorf("slots %d, want %d", a.Slots, tc.wantSlots)
			}
			for _, term := range []Term{TermPrefillResident, TermDecodeResident} {
				off := a.Fit.Step.At(term).Status == StatusOff
				if off != (tc.wantSlots == 0) {
					t.Errorf("%s: status %s, want off only without a slot limit", term, a.Fit.Step.At(term).Status)
				}
			}
			// With one cache for all slots its terms replace ca and ck.
			for _, term := range []Term{TermPrefillAttn, TermDecodeContext} {
				off := a.Fit.Step.At(term).Status == StatusOff
				if off != (tc.wantSlots > 0) {
					t.Errorf("%s: status %s, want off only with a slot limit", term, a.Fit.Step.At(term).Status)
				}
			}
			if d := a.Fit.Step.Curve().At(1); math.Abs(d-5e-3) > 0.05*5e-3 {
				t.Errorf("one-token step %.4g s, want 5 ms within 5%%", d)
			}
			// A term held out of the model is off; the others are fitted.
			opt := AnalyzeOptions{Relative: true}
			opt.Without[TermResident], opt.Without[TermDecodeContext] = true, true
			b, err := Analyze(runs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if s := b.Fit.Step.Cr.Status; s != StatusOff {
				t.Errorf("without cr: cr status %s", s)
			}
			if s := b.Fit.Step.Ck.Status; s != StatusOff {
				t.Errorf("without ck: ck status %s", s)
			}
			if off := b.Fit.Step.Crd.Status == StatusOff; off != (tc.wantSlots == 0) {
				t.Errorf("without cr: crd status %s", b.Fit.Step.Crd.Status)
			}
		})
	}
}

func TestParseTerm(t *testing.T) {
	for term := range Term(NumTerms) {
		if got, err := ParseTerm(term.String()); err != nil || got != term {
			t.Errorf("ParseTerm(%q) = %v, %v", term.String(), got, err)
		}
	}
	if _, err := ParseTerm("cx"); err == nil || !strings.Contains(err.Error(), `"cx"`) || !strings.Contains(err.Error(), "crd") {
		t.Errorf("unknown term: error %v, want the name and the accepted ones", err)
	}
}

// Term names are read whatever their case, as policy and precision names
// are: no two of them differ only in case.
func TestParseTermIgnoresCase(t *testing.T) {
	seen := map[string]Term{}
	for term := range Term(NumTerms) {
		folded := strings.ToLower(term.String())
		if other, ok := seen[folded]; ok {
			t.Fatalf("terms %s and %s differ only in case", other, term)
		}
		seen[folded] = term
		for _, name := range []string{strings.ToUpper(term.String()), strings.ToUpper(term.String()[:1]) + term.String()[1:]} {
			if got, err := ParseTerm(name); err != nil || got != term {
				t.Errorf("ParseTerm(%q) = %v, %v, want %v", name, got, err, term)
			}
		}
	}
	if _, err := ParseTerm("CX"); err == nil || !strings.Contains(err.Error(), `"CX"`) || !strings.Contains(err.Error(), "c0, cp, ca") {
		t.Errorf("unknown term: error %v, want the name and the accepted ones", err)
	}
}

// Residuals are grouped by repeat for the repeated kinds, so that a bias
// that flips between repeats shows.
func TestResidualSpreadByRepeat(t *testing.T) {
	var c StepCoefficients
	c.Dense = DenseOff()
	c.C0 = Coef{Value: 10e-3, Status: StatusFit}
	runs := []*RunResult{
		{Spec: RunSpec{Kind: KindDecode, Repeat: 1}},
		{Spec: RunSpec{Kind: KindDecode, Repeat: 2}},
		{Spec: RunSpec{Kind: KindMemory, Repeat: 1}},
	}
	obs := []Observation{
		{DecodeSeqs: 1, Seconds: 8e-3, Run: 0},    // +25%
		{DecodeSeqs: 1, Seconds: 12.5e-3, Run: 1}, // −20%
		{DecodeSeqs: 1, Seconds: 10e-3, Run: 2},   // 0
	}
	got := map[string]ResidualSpread{}
	var order []string
	for _, r := range residualSpread(c.Predict(nil, obs), obs, runs) {
		got[r.Group] = r
		order = append(order, r.Group)
	}
	want := []string{"all", "decode", "decode r1", "decode r2", "memory"}
	if !slices.Equal(order, want) {
		t.Fatalf("groups %v, want %v", order, want)
	}
	if got["all"].N != 3 || got["decode"].N != 2 {
		t.Errorf("all has %d steps, decode %d; want 3 and 2", got["all"].N, got["decode"].N)
	}
	for g, w := range map[string]float64{"decode r1": 0.25, "decode r2": -0.2, "memory": 0} {
		if v := got[g].Median; math.Abs(v-w) > 1e-9 {
			t.Errorf("%s: median %v, want %v", g, v, w)
		}
	}
}

// Absolute error counts every step once: a window of k decode steps,
// their mean, weighs k, so averaging steps whose features do not change
// fits what the single steps fit. (Weighed as one step, decode counted
// 1/8 beside prompt steps, and the interval's one σ mixed the spread of
// means with the spread of single steps.)
func TestAnalyzeAbsoluteWeighsWindowsBySteps(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 512, 32, 64, 128, 256, 512}
	var runs []*RunResult
	t0 := int64(0)
	for _, kind := range []string{KindPrefill, KindDecode} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		runs = append(runs, r)
	}
	fit := func(window int) StepCoefficients {
		// One decode sequence at a time, and no term that changes from
		// step to step within a window. Without cd, c0 is the decode
		// steps' and the prompts' alike: how much each counts shows.
		opt := AnalyzeOptions{Window: window, Linear: true, NoTrim: true}
		opt.Without[TermDecodeContext], opt.Without[TermPostPrefill], opt.Without[TermDecodeSeqs] = true, true, true
		a, err := Analyze(runs, opt)
		if err != nil {
			t.Fatal(err)
		}
		return a.Fit.Step
	}
	single, windowed := fit(1), fit(8)
	for _, term := range []Term{TermConst, TermPrefill, TermPrefillAttn} {
		s, w := single.At(term).Value, windowed.At(term).Value
		if math.Abs(s-w) > 1e-9*math.Max(math.Abs(s), 1e-6) {
			t.Errorf("%s: %.9g in windows of 8, %.9g from single steps", term, w, s)
		}
	}
}

// A group's median residual is the median, as MdAPE's, the by-run
// residuals' and MedAbs are: with an even count, the mean of the middle
// two, not the lower of them.
func TestResidualSpreadMedianOfEvenCount(t *testing.T) {
	var c StepCoefficients
	c.Dense = DenseOff()
	c.C0 = Coef{Value: 10e-3, Status: StatusFit}
	runs := []*RunResult{{Spec: RunSpec{Name: "decode-r1", Kind: KindDecode, Repeat: 1}}}
	obs := []Observation{
		{DecodeSeqs: 1, Seconds: 8e-3},    // +25%
		{DecodeSeqs: 1, Seconds: 12.5e-3}, // −20%
	}
	pred := c.Predict(nil, obs)
	spread := residualSpread(pred, obs, runs)
	byRun := runResiduals(pred, obs, runs)
	if len(spread) == 0 || len(byRun) != 1 {
		t.Fatalf("spread %+v, by run %+v", spread, byRun)
	}
	if all := spread[0]; all.Group != "all" || math.Abs(all.Median-0.025) > 1e-12 || math.Abs(all.Median-byRun[0].Median) > 1e-12 {
		t.Errorf("median residual of all %+v, by run %+v: want +2.5%% in both", all, byRun[0])
	}
}
