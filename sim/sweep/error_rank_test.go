package sweep

import (
	"context"
	"math"
	"strings"
	"testing"
)

// A load-curve run that fails (here one below the fixed rate: the trace's
// arrivals, stretched, pass the simulator's clock) is a finding about that
// load point, not about the config: the row keeps its outcome and metrics
// at its scale, the point is left off the curve, and the note names the
// scale and the error.
func TestALoadPointErrorKeepsTheRow(t *testing.T) {
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
	if r.Outcome != OutcomeOK || !r.SLOMet || r.Rank != 1 || math.IsNaN(r.USDPerMOutEst) {
		t.Fatalf("outcome %s, slo_met %v, rank %d, $/1M %v, note %q; want the row's results at its scale kept", r.Outcome, r.SLOMet, r.Rank, r.USDPerMOutEst, r.Note)
	}
	if !strings.Contains(r.Note, "load curve at scale "+formatValue(grid)) || !strings.Contains(r.Note, "beyond the simulator's clock") {
		t.Errorf("note %q; want the failed load point's scale and error", r.Note)
	}
	for _, p := range r.Curve {
		if p.Scale == grid {
			t.Errorf("curve holds the failed point %+v", p)
		}
	}
	if len(r.Curve) == 0 || r.Curve[0].Scale != rate {
		t.Errorf("curve %+v; want the evaluated scale on it", r.Curve)
	}
}
