package verify

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

func TestKendallTauKnownPermutations(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"identical", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		{"one adjacent swap of 4", []float64{1, 2, 3, 4}, []float64{2, 1, 3, 4}, 4.0 / 6},
		{"one adjacent swap of 3", []float64{1, 2, 3}, []float64{1, 3, 2}, 1.0 / 3},
		// 3 1 4 2 against 1 2 3 4: pairs (3,1)d (3,4)c (3,2)d (1,4)c (1,2)c (4,2)d → 0
		{"3142", []float64{1, 2, 3, 4}, []float64{3, 1, 4, 2}, 0},
		// τ-b with a tie in y: C=2, D=0, ties_y=1 → 2/sqrt(3×2)
		{"tie", []float64{1, 2, 3}, []float64{1, 1, 2}, 2 / math.Sqrt(6)},
	} {
		if got := KendallTau(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: τ = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := KendallTau([]float64{1}, []float64{1}); !math.IsNaN(got) {
		t.Errorf("one value: τ = %v, want NaN", got)
	}
	if got := KendallTau([]float64{1, 1}, []float64{1, 2}); !math.IsNaN(got) {
		t.Errorf("all tied: τ = %v, want NaN", got)
	}
}

func f(v float64) *float64 { return &v }

func TestCompareMetricsAndRank(t *testing.T) {
	tol := DefaultTolerances()
	pred := &Metrics{OutTokPerSec: f(105), TTFTMean: f(0.5), TTFTP99: f(1.3), USDPerMOut: f(1)}
	meas := &Metrics{OutTokPerSec: f(100), TTFTMean: f(0.4), TTFTP99: f(1.0), USDPerMOut: f(1), TPOTMean: f(0.01)}
	rows := CompareMetrics(pred, meas, tol)
	byName := map[string]MetricRow{}
	for _, r := range rows {
		byName[r.Metric] = r
	}
	check := func(name string, wantErr float64, wantPass *bool) {
		t.Helper()
		r := byName[name]
		if wantPass == nil {
			if r.Pass != nil || r.RelError != nil {
				t.Errorf("%s: want no verdict, got %+v", name, r)
			}
			return
		}
		if r.Pass == nil || *r.Pass != *wantPass || math.Abs(*r.RelError-wantErr) > 1e-9 {
			t.Errorf("%s: %+v, want error %v pass %v", name, r, wantErr, *wantPass)
		}
	}
	yes, no := true, false
	check(MetricThroughput, 0.05, &yes)
	check(MetricTTFTMean, 0.25, &no)
	check(MetricTTFTP99, 0.30, &no)
	check(MetricCost, 0, &yes)
	check(MetricTPOTMean, 0, nil) // predicted missing: no verdict, never a fail

	cands := []CandidateResult{
		{Rank: 1, Label: "a", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(1.02)}}, Predicted: Metrics{USDPerMOut: f(1)}},
		{Rank: 2, Label: "b", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(1)}}, Predicted: Metrics{USDPerMOut: f(2)}},
		{Rank: 3, Label: "c", Repeat: Repeat{Status: StatusStartFailed}},
		{Rank: 4, Label: "d", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(3)}}, Predicted: Metrics{USDPerMOut: f(3)}},
	}
	rk := Rank(cands)
	if len(rk.Entries) != 3 || rk.Entries[0].Label != "b" || rk.Entries[1].Label != "a" || rk.Entries[2].Label != "d" {
		t.Fatalf("ranking %+v", rk.Entries)
	}
	if rk.Held || rk.TauSweep == nil || math.Abs(*rk.TauSweep-1.0/3) > 1e-12 {
		t.Errorf("τ %v held %v, want 1/3, false", rk.TauSweep, rk.Held)
	}
	if rk.BestHeld == nil || !*rk.BestHeld || math.Abs(*rk.BestGap-0.02) > 1e-12 {
		t.Errorf("best held %v gap %v, want true, 0.02", rk.BestHeld, rk.BestGap)
	}
}

func TestCompareOutputs(t *testing.T) {
	k := func(id string) RequestKey { return RequestKey{ID: id} }
	cs := CompareOutputs([]string{"a", "b", "c"}, []map[RequestKey]string{
		{k("1"): "x", k("2"): "y", k("3"): "z"},
		{k("1"): "x", k("2"): "Y"},
		{k("1"): "x", k("3"): "z", k("4"): "only here"},
	})
	if cs.Compared != 3 || cs.Differ != 1 || cs.Examples[0] != "2" {
		t.Errorf("%+v", cs)
	}
	if cs.PerCandidate[0].Compared != 2 || cs.PerCandidate[0].Differ != 1 || cs.PerCandidate[1].Differ != 0 {
		t.Errorf("per candidate %+v", cs.PerCandidate)
	}
}

// A plan may price its device at $0/h (owned hardware): every measured
// cost is then 0, a tie, and the ranking must still be writable.
func TestRankZeroMeasuredCostIsWritable(t *testing.T) {
	zero := 0.0
	cands := []CandidateResult{
		{Rank: 1, Label: "a", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: &zero}}, Predicted: Metrics{USDPerMOut: &zero}},
		{Rank: 2, Label: "b", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: &zero}}, Predicted: Metrics{USDPerMOut: &zero}},
	}
	rk := Rank(cands)
	if _, err := json.Marshal(rk); err != nil || rk.BestGap == nil || *rk.BestGap != 0 || !*rk.BestHeld {
		t.Fatalf("$0 measured costs: %v, ranking %+v; want a tie the best held", err, rk)
	}
}

// Two candidates measured at the same cost contradict no ranking: the
// ranking holds while τ-b stays below 1, and fails once a pair is
// measured the other way round.
func TestRankTieInMeasuredCostHolds(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	cand := func(rank int64, c float64) CandidateResult {
		return CandidateResult{Rank: rank, Label: fmt.Sprint(rank), Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: cost(c)}}}
	}
	rk := Rank([]CandidateResult{cand(1, 0.10), cand(2, 0.12), cand(3, 0.12)})
	if rk.TauSweep == nil || *rk.TauSweep >= 1 || !rk.Held {
		t.Errorf("tie: τ %v held %v, want τ < 1 and held", rk.TauSweep, rk.Held)
	}
	rk = Rank([]CandidateResult{cand(1, 0.10), cand(2, 0.12), cand(3, 0.11)})
	if rk.Held {
		t.Errorf("ranks 2 and 3 measured the other way round: held %v, want false", rk.Held)
	}
}

// When the sweep's first candidate was not measured, the best-candidate
// line names the rank it judged instead of calling it the sweep's best.
func TestRankNamesTheBestMeasuredWhenTheFirstFailed(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cands := []CandidateResult{
		{Rank: 1, Label: "a", Repeat: Repeat{Status: StatusStartFailed}},
		{Rank: 2, Label: "b", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(1)}}, Predicted: Metrics{USDPerMOut: f(1)}},
		{Rank: 3, Label: "c", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(2)}}, Predicted: Metrics{USDPerMOut: f(2)}},
	}
	rk := Rank(cands)
	if got, want := rk.BestString(), "the sweep's best measured candidate (rank 2) was measured cheapest"; rk.BestRank != 2 || got != want {
		t.Errorf("best rank %d, %q; want 2, %q", rk.BestRank, got, want)
	}
	cands[0].Status = StatusOK
	cands[0].Measured.USDPerMOut, cands[0].Predicted.USDPerMOut = f(1.5), f(1)
	if got, want := Rank(cands).BestString(), "the sweep's best was measured 50.0% dearer than the cheapest (within 5%: false)"; got != want {
		t.Errorf("%q; want %q", got, want)
	}
}
