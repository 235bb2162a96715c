package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
)

// Without measured energy (no --gpu) a candidate's cost is compared and
// ranked on hardware alone on both sides, and says so: the simulator's
// energy would otherwise be priced on one side only.
func TestRunComparesCostOnOneBasis(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	opt := Options{Candidates: candidates(4, 6), Trace: writeTrace(t, dir, 8, 10*time.Millisecond), Replay: stubReplay(t),
		Out: out, Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Status != StatusOK {
			t.Fatalf("%s: %s (%s)", c.Label, c.Status, c.Detail)
		}
		p, m := c.Predicted, c.Measured
		if c.CostBasis != CostHardware || p.USDPerMOut == nil || p.USDPerMOutHardware == nil || *p.USDPerMOut != *p.USDPerMOutHardware ||
			m.USDPerMOut == nil || m.USDPerMOutHardware == nil || *m.USDPerMOut != *m.USDPerMOutHardware {
			t.Errorf("%s: basis %q, predicted %s (hardware %s), measured %s (hardware %s): want both on hardware alone",
				c.Label, c.CostBasis, fmtOpt(p.USDPerMOut), fmtOpt(p.USDPerMOutHardware), fmtOpt(m.USDPerMOut), fmtOpt(m.USDPerMOutHardware))
		}
	}
	if res.Ranking.CostBasis != CostHardware {
		t.Errorf("ranking basis %q, want %q", res.Ranking.CostBasis, CostHardware)
	}
	var b strings.Builder
	res.WriteTable(&b)
	if !strings.Contains(b.String(), "usd_per_m_out (hardware)") || !strings.Contains(b.String(), "by measured $/1M out (hardware)") {
		t.Errorf("table does not say the cost basis:\n%s", b.String())
	}
	data, err := json.Marshal(res.RelativeTo(out))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseResult(data, "verify.json"); err != nil {
		t.Errorf("verify.json does not read back: %v", err)
	}
}

// The re-simulation's cost is the sweep's estimate (hardware and energy
// at the plan's prices); its hardware share is kept beside it.
func TestSimulatedCostIsTheSweepsEstimate(t *testing.T) {
	dir := t.TempDir()
	in := writeTrace(t, dir, 8, 10*time.Millisecond)
	p, err := plan.Parse([]byte(fmt.Sprintf(tinyPlan, 4)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := simulate(t.Context(), r, dir, filepath.Join(dir, "rank01.sim.parquet"), "rank01", 1, nil, "roofline prior (uncalibrated)", simSource{input: in})
	if err != nil {
		t.Fatal(err)
	}
	if m.JPerOutTok == nil || m.DeviceSeconds == nil || m.USDPerMOut == nil || m.USDPerMOutHardware == nil {
		t.Fatalf("predicted %+v: want energy, device-seconds and both costs", m)
	}
	// tinyPlan: $0.10/h, $0.15/kWh, PUE 1.2.
	hw := *m.DeviceSeconds / 3600 * 0.10 / float64(m.OutputTokens) * 1e6
	en := *m.JPerOutTok / 3.6e6 * 0.15 * 1.2 * 1e6
	if math.Abs(*m.USDPerMOutHardware-hw) > 1e-9*hw || math.Abs(*m.USDPerMOut-(hw+en)) > 1e-9*(hw+en) {
		t.Errorf("$/1M out %v (hardware %v): want hardware %v + energy %v", *m.USDPerMOut, *m.USDPerMOutHardware, hw, en)
	}
}

// With energy measured on both sides the cost is the sweep's estimate,
// and the ranking follows it; one candidate without measured energy puts
// the whole ranking on hardware, the one basis every candidate has.
func TestRankOnTheSweepsBasis(t *testing.T) {
	cand := func(rank int64, hw, est float64, energy bool) CandidateResult {
		m := Metrics{USDPerMOut: f(est), USDPerMOutHardware: f(hw)}
		basis := CostHardwareEnergy
		if !energy {
			basis, m.USDPerMOut = CostHardware, f(hw)
		}
		return CandidateResult{Rank: rank, Label: "c", RateScale: 1, CostBasis: basis, Repeat: Repeat{Status: StatusOK, Measured: m}, Predicted: m}
	}
	// Energy turns the hardware order round: rank 1 is cheaper only with it.
	rk := Rank([]CandidateResult{cand(1, 1.1, 1.5, true), cand(2, 1.0, 1.8, true)})
	if rk.CostBasis != CostHardwareEnergy || rk.Entries[0].SweepRank != 1 || rk.TauSweep == nil || *rk.TauSweep != 1 || !rk.Held {
		t.Errorf("ranking %+v: want rank 1 cheapest on hardware+energy, the order held", rk)
	}
	rk = Rank([]CandidateResult{cand(1, 1.1, 1.5, true), cand(2, 1.0, 1.8, false)})
	if rk.CostBasis != CostHardware || rk.Entries[0].SweepRank != 2 || rk.Entries[0].MeasuredCost != 1.0 || rk.Entries[1].MeasuredCost != 1.1 {
		t.Errorf("ranking %+v: want both on hardware alone", rk)
	}
}

// settleCostBasis keeps the estimate when both sides priced energy, and
// falls back to hardware on both sides (and the runs' range) otherwise.
func TestSettleCostBasis(t *testing.T) {
	for _, measuredEnergy := range []bool{true, false} {
		c := CandidateResult{Predicted: Metrics{JPerOutTok: f(2), USDPerMOut: f(3), USDPerMOutHardware: f(2)},
			Repeat: Repeat{Measured: Metrics{USDPerMOut: f(4), USDPerMOutHardware: f(2.5)}}}
		lo := Metrics{USDPerMOut: f(3.5), USDPerMOutHardware: f(2.4)}
		hi := Metrics{USDPerMOut: f(4.5), USDPerMOutHardware: f(2.6)}
		if measuredEnergy {
			c.Measured.JPerOutTok = f(2.2)
		}
		c.settleCostBasis(&lo, &hi)
		want, p, m, l, h := CostHardwareEnergy, 3.0, 4.0, 3.5, 4.5
		if !measuredEnergy {
			want, p, m, l, h = CostHardware, 2, 2.5, 2.4, 2.6
		}
		if c.CostBasis != want || *c.Predicted.USDPerMOut != p || *c.Measured.USDPerMOut != m || *lo.USDPerMOut != l || *hi.USDPerMOut != h {
			t.Errorf("measured energy %v: basis %q, predicted %v, measured %v (%v–%v): want %q, %v, %v (%v–%v)", measuredEnergy,
				c.CostBasis, *c.Predicted.USDPerMOut, *c.Measured.USDPerMOut, *lo.USDPerMOut, *hi.USDPerMOut, want, p, m, l, h)
		}
	}
}

// The refit's re-simulations compare cost on the candidate's own basis:
// re-simulated with the same step model, every row is the one verify
// wrote, the hardware-only cost of a run without measured energy too.
func TestResimulateKeepsTheCostBasis(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Candidates: candidates(4), Trace: writeTrace(t, dir, 8, 10*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Catalog = model.DefaultCatalog()
	again, err := resimulate(context.Background(), res, opt, "same", new([]error), func(CandidateResult) (*calibrate.Profile, string, string) { return nil, "", "" })
	if err != nil {
		t.Fatal(err)
	}
	for j, r := range again[0].Rows {
		if w := res.Candidates[0].Rows[j]; r.Metric == MetricCost && fmtOpt(r.Predicted) != fmtOpt(w.Predicted) {
			t.Errorf("%s re-simulated: predicted %s, want %s (basis %s)", r.Metric, fmtOpt(r.Predicted), fmtOpt(w.Predicted), res.Candidates[0].CostBasis)
		}
	}
}

// A cost basis verify never writes is refused, naming the field.
func TestParseResultRefusesAnUnknownCostBasis(t *testing.T) {
	data, err := os.ReadFile("testdata/verify.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"rank": 1,`, `"rank": 1, "cost_basis": "energy",`, 1)
	_, err = ParseResult([]byte(bad), "verify.json")
	if err == nil || !strings.Contains(err.Error(), `candidates[0].cost_basis = "energy"`) {
		t.Errorf("error %v: want candidates[0].cost_basis named", err)
	}
}
