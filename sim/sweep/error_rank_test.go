package sweep

import (
	"context"
	"math"
	"testing"
)

// A config whose evaluation fails after its metrics were filled (here a
// load-curve run below the fixed rate: the trace's arrivals, stretched,
// pass the simulator's clock) is an error row: it is neither ranked nor
// said to meet the SLO, and so never becomes a candidate for verify.
func TestAnErrorRowIsNotRanked(t *testing.T) {
	tr := short(t)
	last := float64(tr.Reqs[len(tr.Reqs)-1].Arrival)
	// The evaluated scale keeps every arrival on the clock; the grid scale
	// just below it, on the curve, does not.
	grid := math.Ldexp(1, int(math.Floor(math.Log2(last/math.MaxInt64))))
	rate := 1.5 * grid
	if !(last/rate < math.MaxInt64 && last/grid >= math.MaxInt64 && grid >= rate/2) {
		t.Fatalf("rate %g, grid %g: want the curve's grid scale alone past the clock", rate, grid)
	}
	ev, ex := evaluatorFor(t, `base = "base.toml"`+"\n[sweep]\nrate_scale = ["+formatValue(rate)+"]\n[slo]\nttft_p99_ms = 1e12\n")
	rows := []Row{configRow(&ex.Configs[0])}
	if err := ev.evaluate(context.Background(), &rows[0]); err != nil {
		t.Fatal(err)
	}
	Rank(rows)
	r := rows[0]
	if r.Outcome != OutcomeError {
		t.Fatalf("outcome %s, note %q; want an error", r.Outcome, r.Note)
	}
	if r.Rank != 0 || r.SLOMet || r.OnPareto {
		t.Errorf("error row: rank %d, slo_met %v, on_pareto %v; want it unranked, not meeting the SLO", r.Rank, r.SLOMet, r.OnPareto)
	}
	if n := len(Candidates(&Results{Rows: rows}, 0).Candidates); n != 0 {
		t.Errorf("%d candidates from an error row", n)
	}
}
