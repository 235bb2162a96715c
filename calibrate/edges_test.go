package calibrate

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/servesim/servesim/traces"
)

// Scaling b scales the solution: no threshold in NNLS may be absolute.
func TestNNLSIsScaleFree(t *testing.T) {
	a := mat.NewDense(3, 3, []float64{3, -1, 3, -2, 1, -1, 3, -1, 2})
	want := []float64{4, 10, 0} // NNLS of b = (2, 2, 2); 3·4−10 = 2, −8+10 = 2, 12−10 = 2
	for _, s := range []float64{1, 1e-20} {
		b := mat.NewVecDense(3, []float64{2 * s, 2 * s, 2 * s})
		var x mat.VecDense
		if _, err := NNLS(&x, a, b, nil); err != nil {
			t.Fatalf("b scaled by %g: %v", s, err)
		}
		for i, w := range want {
			if math.Abs(x.AtVec(i)/s-w) > 1e-9 {
				t.Errorf("b scaled by %g: x[%d]/s = %g, want %g", s, i, x.AtVec(i)/s, w)
			}
		}
	}
}

// A window's features are the means of its steps', so the model predicts
// its mean step exactly. The dense curve is piecewise linear in the decode
// count, so a window holds one count.
func TestWindowStepsDenseFeaturesAreMeans(t *testing.T) {
	// Back-to-back pure-decode steps: 5, 4, 3 sequences (one finishes each step).
	var obs []Observation
	var t0 int64
	for _, d := range []float64{5, 4, 3} {
		obs = append(obs, Observation{Start: t0, End: t0 + 10e6, DecodeSeqs: d, DecodeContext: 100 * d, Seconds: 0.01})
		t0 += 10e6
	}
	win, counts := WindowSteps(nil, nil, obs, 8)
	// Each window's features must be the mean of the features of the steps it covers.
	i := 0
	for w, o := range win {
		k := int(counts[w])
		m := make([]float64, NumTerms)
		for _, s := range obs[i : i+k] {
			for j, v := range s.Features(nil) {
				m[j] += v / float64(k)
			}
		}
		i += k
		for j, v := range o.Features(nil) {
			if math.Abs(v-m[j]) > 1e-12 {
				t.Errorf("window %d (%d steps, decode_seqs %g): feature %s = %g, mean of its steps' = %g", w, k, o.DecodeSeqs, Term(j), v, m[j])
			}
		}
	}
}

// A request that failed mid-stream ran in the engine for a while: the
// steps it may have been part of are tainted, not fitted a sequence short.
func TestRecoverStepsTaintsFailedRunningRequest(t *testing.T) {
	a := row("a", 100, 0, 10, 20, 30, 40)
	b := row("b", 100, 0, 10, 20, 30)
	// b failed after its third token: what the replay keeps of it.
	b.TokenTimes, b.FirstToken, b.LastToken = nil, traces.Missing, traces.Missing
	b.UsagePrompt, b.UsageOutput, b.Error = traces.Missing, traces.Missing, "stream: connection reset"
	obs, st, err := RecoverSteps(nil, []*traces.Request{a, b}, &RecoverSettings{Tolerance: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if o.End <= 30e6 && o.Start >= 0 {
			t.Errorf("step %d..%d ns kept with decode_seqs %g, prefill %g: b was running then (tainted %d)", o.Start, o.End, o.DecodeSeqs, o.PrefillTokens, st.Tainted)
		}
	}
}

// A request that got no response (refused, or the connection closed
// before the server answered) never reached the engine's batch: the steps
// of the requests beside it are kept, as if it had not been sent. One that
// waited for a response past the timeout may have been prefilling (an
// engine that answers with its first token) and still taints them.
func TestRecoverStepsIgnoresRequestWithoutResponse(t *testing.T) {
	rows := func() []*traces.Request {
		return []*traces.Request{row("a", 100, 0, 10, 20, 30, 40), row("b", 100, 0, 10, 20, 30)}
	}
	set := &RecoverSettings{Tolerance: 1e6}
	want, _, err := RecoverSteps(nil, rows(), set)
	if err != nil {
		t.Fatal(err)
	}
	failed := func(msg string) *traces.Request {
		r := row("c", 100, 5, 6) // its times are cleared below
		r.TokenTimes, r.FirstToken, r.LastToken = nil, traces.Missing, traces.Missing
		r.UsagePrompt, r.UsageOutput, r.HTTPStatus, r.Error = traces.Missing, traces.Missing, traces.Missing, msg
		return r
	}
	for _, msg := range []string{
		"connection: connection refused by localhost:8000 (is the server running and the port right?)",
		"connection: localhost:8000 closed the connection before responding",
	} {
		got, st, err := RecoverSteps(nil, append(rows(), failed(msg)), set)
		if err != nil {
			t.Fatal(err)
		}
		if st.Tainted != 0 || !slices.Equal(got, want) {
			t.Errorf("%q: %d steps (tainted %d), want the %d of the run without it", msg, len(got), st.Tainted, len(want))
		}
	}
	got, st, err := RecoverSteps(nil, append(rows(), failed("timeout: no response headers within 1m0s from POST /v1/completions")), set)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tainted == 0 || len(got) >= len(want) {
		t.Errorf("timeout without a response: %d steps (tainted %d), want fewer than %d", len(got), st.Tainted, len(want))
	}
}
