package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/servesim/servesim/traces"
)

// genReq is a request of the test generator.
type genReq struct {
	arrival        int64
	prompt, output int
}

// genConfig drives tinyEngine.
type genConfig struct {
	coef     [NumTerms]float64 // true step model, seconds
	maxSeqs  int               // batch limit
	kvBudget float64           // max Σ context over running requests; 0 = unlimited
	jitter   int64             // client receive jitter per token, ns, uniform [0, jitter)
	seed     uint64
}

// tinyEngine is a continuous batcher: each step it admits waiting requests
// (FIFO, preempted ones first) up to maxSeqs and the KV budget, preempts
// the most recently admitted running request by recompute when the budget
// is exceeded, runs the step for the time the linear model gives, and
// emits one token per batch member at the step's end. It returns the
// trace rows a client would record and the steps it ran.
func tinyEngine(reqs []genReq, c genConfig) ([]*traces.Request, []Observation) {
	rng := rand.New(rand.NewPCG(c.seed, 7))
	type state struct {
		genReq
		id      int
		gen     int
		started bool // prefilled (and not preempted since)
	}
	out := make([]*traces.Request, len(reqs))
	st := make([]*state, len(reqs))
	for i, r := range reqs {
		st[i] = &state{genReq: r, id: i}
		tr := &traces.Request{}
		tr.Reset()
		tr.ID = fmt.Sprintf("r%d", i)
		tr.Arrival, tr.ScheduledSend, tr.ActualSend = r.arrival, r.arrival, r.arrival
		tr.PromptTokens, tr.OutputTokens = int32(r.prompt), int32(r.output)
		tr.UsagePrompt = int32(r.prompt)
		out[i] = tr
	}
	var waiting, running []*state
	next := 0 // next request to arrive (reqs sorted by arrival)
	done := 0
	var steps []Observation
	t := int64(0)
	ctx := func(s *state) float64 { return float64(s.prompt + s.gen + 1) }
	for done < len(reqs) {
		for next < len(reqs) && st[next].arrival <= t {
			waiting = append(waiting, st[next])
			next++
		}
		// Preempt by recompute while running requests overflow the budget.
		if c.kvBudget > 0 {
			for {
				var used float64
				for _, s := range running {
					used += ctx(s)
				}
				if used <= c.kvBudget || len(running) <= 1 {
					break
				}
				victim := running[len(running)-1]
				running = running[:len(running)-1]
				victim.started = false
				waiting = append([]*state{victim}, waiting...)
			}
		}
		var used float64
		for _, s := range running {
			used += ctx(s)
		}
		var admitted []*state
		for len(waiting) > 0 && len(running)+len(admitted) < c.maxSeqs {
			s := waiting[0]
			if c.kvBudget > 0 && used+ctx(s) > c.kvBudget && len(running)+len(admitted) > 0 {
				break
			}
			used += ctx(s)
			admitted = append(admitted, s)
			waiting = waiting[1:]
		}
		if len(running) == 0 && len(admitted) == 0 {
			t = st[next].arrival
			continue
		}
		var o Observation
		for _, s := range running {
			o.DecodeSeqs++
			o.DecodeContext += float64(s.prompt + s.gen)
		}
		for _, s := range admitted {
			n := float64(s.prompt + s.gen)
			o.PrefillTokens += n
			o.PrefillAttn += n * n
		}
		sec := c.coef[0] + c.coef[1]*o.PrefillTokens + c.coef[2]*o.PrefillAttn + c.coef[3]*o.DecodeSeqs + c.coef[4]*o.DecodeContext
		o.Start, o.End = t, t+int64(math.Round(sec*1e9))
		o.Seconds = float64(o.End-o.Start) * 1e-9
		if o.DecodeSeqs == 0 {
			// Idle start when every member arrived after the previous step's end.
			o.FromIdle = len(steps) == 0 || steps[len(steps)-1].End < o.Start
		}
		steps = append(steps, o)
		t = o.End
		batch := append(append([]*state(nil), running...), admitted...)
		running = running[:0]
		for _, s := range batch {
			s.started = true
			j := int64(0)
			if c.jitter > 0 {
				j = rng.Int64N(c.jitter)
			}
			tr := out[s.id]
			tr.TokenTimes = append(tr.TokenTimes, t+j)
			s.gen++
			if s.gen == s.output {
				tr.FirstToken, tr.LastToken = tr.TokenTimes[0], tr.TokenTimes[len(tr.TokenTimes)-1]
				tr.UsageOutput = int32(s.gen)
				done++
				continue
			}
			running = append(running, s)
		}
	}
	return out, steps
}

var trueCoef = [NumTerms]float64{4e-3, 6e-5, 2e-9, 8e-5, 1.5e-7}

// workload makes n requests with Poisson arrivals at rate per second.
func workload(n int, rate float64, seed uint64) []genReq {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]genReq, n)
	t := 0.0
	for i := range out {
		t += rng.ExpFloat64() / rate
		out[i] = genReq{arrival: int64(t * 1e9), prompt: 16 + rng.IntN(2000), output: 1 + rng.IntN(200)}
	}
	return out
}

func TestRecoverStepsMatchesGenerator(t *testing.T) {
	cases := []struct {
		name     string
		cfg      genConfig
		rate     float64
		resumed  bool
		maxSkewS float64
	}{
		{name: "exact", cfg: genConfig{coef: trueCoef, maxSeqs: 32, seed: 1}, rate: 8},
		{name: "serial-ish", cfg: genConfig{coef: trueCoef, maxSeqs: 1, seed: 2}, rate: 0.5},
		{name: "jitter", cfg: genConfig{coef: trueCoef, maxSeqs: 64, jitter: 200_000, seed: 3}, rate: 20, maxSkewS: 400e-6},
		{name: "preemption", cfg: genConfig{coef: trueCoef, maxSeqs: 64, kvBudget: 12000, seed: 4}, rate: 30, resumed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows, want := tinyEngine(workload(300, tc.rate, tc.cfg.seed), tc.cfg)
			got, st, err := RecoverSteps(nil, rows, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("recovered %d steps, generator ran %d (stats %+v)", len(got), len(want), st)
			}
			if tc.resumed != (st.Resumed > 0) {
				t.Errorf("resumed = %d, want resumed: %v", st.Resumed, tc.resumed)
			}
			var worst float64
			for i := range want {
				g, w := got[i], want[i]
				if g.PrefillTokens != w.PrefillTokens || g.PrefillAttn != w.PrefillAttn ||
					g.DecodeSeqs != w.DecodeSeqs || g.DecodeContext != w.DecodeContext || g.FromIdle != w.FromIdle {
					t.Fatalf("step %d: got %+v, want %+v", i, g, w)
				}
				worst = math.Max(worst, math.Abs(g.Seconds-w.Seconds))
			}
			if worst > tc.maxSkewS+1e-12 {
				t.Errorf("worst duration error %.3g s > %.3g s", worst, tc.maxSkewS)
			}
			t.Logf("%d requests, %d steps (%d from idle, %d resumed request-steps), tolerance %d ns, worst duration error %.3g s",
				st.Requests, st.Steps, st.FromIdle, st.Resumed, st.Tolerance, worst)

			// The recovered steps identify the generator's coefficients.
			f, err := FitSteps(got, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range NumTerms {
				c := f.Step.At(Term(i))
				if e := math.Abs(c.Value-trueCoef[i]) / trueCoef[i]; e > 0.05 && c.Status == StatusFit {
					t.Errorf("%s = %.4g, want %.4g (%.1f%% off)", Term(i), c.Value, trueCoef[i], 100*e)
				}
			}
			t.Logf("fit: %s R2=%.6f notes=%v", fmtCoefs(f.Step), f.Quality.R2, f.Notes)
		})
	}
}

func fmtCoefs(s StepCoefficients) string {
	out := ""
	for i := range NumTerms {
		c := s.At(Term(i))
		out += fmt.Sprintf("%s=%.4g[%.4g,%.4g](%s) ", Term(i), c.Value, c.Lo, c.Hi, c.Status)
	}
	return out
}

func TestRecoverStepsDropsAmbiguousBoundaries(t *testing.T) {
	rows, want := tinyEngine(workload(40, 5, 9), genConfig{coef: trueCoef, maxSeqs: 16, seed: 9})
	// Coalesce tokens 3 and 4 of a long request: the boundary at token 4
	// is hidden from it, so the step ending there must be dropped, and so
	// must the one it was received at.
	var r *traces.Request
	for _, x := range rows {
		if len(x.TokenTimes) > 10 {
			r = x
			break
		}
	}
	if r == nil {
		t.Fatal("no long request")
	}
	r.TokenTimes[3] = r.TokenTimes[4]
	got, st, err := RecoverSteps(nil, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Coalesced != 2 || len(got) != len(want)-2 {
		t.Errorf("coalesced = %d, steps %d, want 2 and %d", st.Coalesced, len(got), len(want)-2)
	}

	// A request without token times taints the steps it overlapped.
	rows, want = tinyEngine(workload(40, 5, 10), genConfig{coef: trueCoef, maxSeqs: 16, seed: 10})
	rows[5].TokenTimes = nil
	got, st, err = RecoverSteps(nil, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 1 || st.Tainted == 0 || len(got)+st.Tainted+st.NoStart+st.Coalesced != st.Clusters {
		t.Errorf("stats %+v, %d steps of %d", st, len(got), len(want))
	}
	for _, o := range got {
		if o.End > rows[5].ActualSend && o.Start < rows[5].LastToken {
			t.Errorf("step %+v overlaps the request without token times", o)
		}
	}

	// Decreasing token times are an error naming the request.
	rows[6].TokenTimes[1] = rows[6].TokenTimes[0] - 1
	if _, _, err := RecoverSteps(nil, rows, nil); err == nil {
		t.Error("decreasing token times: no error")
	}
}

func TestRecoverStepsCachedPrefixAndRuns(t *testing.T) {
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.ActualSend = "a", 100, 0
	r.UsagePrompt, r.UsageCached = 100, 64
	r.TokenTimes = []int64{10e6, 15e6, 20e6}
	obs, st, err := RecoverRuns(nil, [][]*traces.Request{{r}, {r}}, &RecoverSettings{Tolerance: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	want := []Observation{
		{Start: 0, End: 10e6, PrefillTokens: 36, PrefillAttn: 3600, Seconds: 0.01, FromIdle: true, Boundary: 1},
		{Start: 10e6, End: 15e6, DecodeSeqs: 1, DecodeContext: 101, Seconds: 0.005, Boundary: 2, PromptBoundary: 1},
		{Start: 15e6, End: 20e6, DecodeSeqs: 1, DecodeContext: 102, Seconds: 0.005, Boundary: 3, PromptBoundary: 1},
	}
	if len(obs) != 6 || st.Steps != 6 {
		t.Fatalf("got %d observations: %+v", len(obs), obs)
	}
	for i, o := range obs {
		w := want[i%3]
		w.Run = i / 3
		if math.Abs(o.Seconds-w.Seconds) > 1e-12 {
			t.Errorf("obs %d seconds %g, want %g", i, o.Seconds, w.Seconds)
		}
		o.Seconds = w.Seconds
		if o != w {
			t.Errorf("obs %d = %+v, want %+v", i, o, w)
		}
	}
	if _, _, err := RecoverSteps(nil, nil, &RecoverSettings{Tolerance: -1}); err == nil {
		t.Error("negative tolerance: no error")
	}
}

func BenchmarkRecoverSteps(b *testing.B) {
	rows, _ := tinyEngine(workload(2000, 20, 5), genConfig{coef: trueCoef, maxSeqs: 64, seed: 5})
	var dst []Observation
	b.ReportAllocs()
	for b.Loop() {
		dst, _, _ = RecoverSteps(dst[:0], rows, nil)
	}
}

// The three steps without prompt tokens after one with some are marked,
// run by run; a run starts unmarked.
func TestMarkAfterPrefill(t *testing.T) {
	p, d := Observation{PrefillTokens: 64}, Observation{DecodeSeqs: 2}
	steps := []Observation{d, p, d, d, d, d, p, d, d}
	for i := range steps {
		steps[i].Run = i / 7 // the last two steps are another run's
	}
	steps[7].PrefillTokens = 0
	markAfterPrefill(steps)
	var got []float64
	for _, o := range steps {
		got = append(got, o.AfterPrefill)
	}
	if want := []float64{0, 0, 1, 1, 1, 0, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("after prefill %v, want %v", got, want)
	}
}
