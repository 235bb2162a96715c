package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestSummaryMatchesItsRows: the summary's figures are those `trace
// stats`, `compare` and verify's measured side compute from the rows the
// run wrote (traces.Request's TTFT, TPOT and E2E, nearest-rank
// percentiles, traces.Window), so predicted and measured compare like
// with like. The set holds a 1-token and a 0-token output (no TPOT), a
// rejection between completions, one after the last (it takes no engine
// time, so it does not stretch the window) and a warm-up row, under each
// policy.
func TestSummaryMatchesItsRows(t *testing.T) {
	w := req("w", 0, 10, 30)
	w.Warmup = true
	reqs := []*traces.Request{w, req("a", 5, 10, 1), req("b", 6, 50, 0), req("c", 7, 30, 20), req("r", 8, 600, 10),
		req("d", 30, 5, 7), req("e", 31, 40, 2), req("f", 200, 10, 9), req("z", 5000, 600, 10)}
	nearest := func(v []float64, p float64) float64 {
		s := slices.Sorted(slices.Values(v))
		return s[max(int(math.Ceil(p*float64(len(s)))), 1)-1]
	}
	mean := func(v []float64) float64 {
		x := 0.0
		for _, y := range v {
			x += y
		}
		return x / float64(len(v))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b)) }
	for _, pol := range []string{Serial, Fixed, Continuous} {
		cfg := testConfig(policy(t, pol), 30, false)
		cfg.MaxModelLen = 400
		if pol == Continuous {
			cfg.Policy.MaxNumBatchedTokens = 400
		}
		sum, rows := mustRun(t, cfg, reqs)
		var win traces.Window
		var ttft, tpot, e2e []float64
		var out, ok, failed int64
		for _, r := range rows.rows {
			if r.Warmup {
				continue
			}
			win.Add(r)
			if !r.Succeeded() {
				failed++
				continue
			}
			ok++
			out += int64(r.UsageOutput)
			v, _ := r.TTFT()
			ttft = append(ttft, float64(v)/1e9)
			v, _ = r.E2E()
			e2e = append(e2e, float64(v)/1e9)
			if x, has := r.TPOT(); has {
				tpot = append(tpot, x/1e9)
			}
		}
		if sum.Completed != ok || sum.Rejected != failed || sum.OutputTokens != out {
			t.Errorf("%s: completed %d, rejected %d, output tokens %d; rows: %d, %d, %d", pol, sum.Completed, sum.Rejected, sum.OutputTokens, ok, failed, out)
		}
		if int(sum.TPOT.N) != len(tpot) || len(tpot) != 4 {
			t.Errorf("%s: TPOT n %d, rows %d; want 4 (a and b have one output token)", pol, sum.TPOT.N, len(tpot))
		}
		for _, c := range []struct {
			name string
			d    Dist
			v    []float64
		}{{"TTFT", sum.TTFT, ttft}, {"TPOT", sum.TPOT, tpot}, {"E2E", sum.E2E, e2e}} {
			if !near(c.d.Mean, mean(c.v)) || !near(c.d.P50, nearest(c.v, .5)) || !near(c.d.P90, nearest(c.v, .9)) || !near(c.d.P99, nearest(c.v, .99)) {
				t.Errorf("%s: %s %+v; rows: mean %v, P50 %v, P90 %v, P99 %v", pol, c.name, c.d, mean(c.v), nearest(c.v, .5), nearest(c.v, .9), nearest(c.v, .99))
			}
		}
		if !near(sum.Makespan, win.Duration().Seconds()) || !near(sum.OutputTokPerSec, win.PerSec(out)) || !near(sum.ReqPerSec, win.PerSec(ok)) {
			t.Errorf("%s: makespan %v s, %v tok/s, %v req/s; rows' window %v s, %v tok/s, %v req/s", pol, sum.Makespan,
				sum.OutputTokPerSec, sum.ReqPerSec, win.Duration().Seconds(), win.PerSec(out), win.PerSec(ok))
		}
	}
}
