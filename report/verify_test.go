package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

func TestVerificationSection(t *testing.T) {
	p, m := 1.2, 1.0
	res := &verify.Result{Requests: 10, Slice: "10", StepModel: "profile x", Candidates: []verify.CandidateResult{
		{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK, Trace: "missing.parquet"}, SimTrace: "missing.sim.parquet",
			Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, verify.DefaultTolerances())},
		{Rank: 2, Label: "b", Repeat: verify.Repeat{Status: verify.StatusHealth, Detail: "not healthy after 60s"}},
	}}
	// Candidate a was measured twice: its rows carry the runs' range.
	lo, hi := 0.9, 1.1
	res.Candidates[0].Rows[0].MeasuredMin, res.Candidates[0].Rows[0].MeasuredMax = &lo, &hi
	res.Candidates[0].Repeats = make([]verify.Repeat, 2)
	if path := os.Getenv("SERVESIM_VERIFY_JSON"); path != "" { // a real run's verify.json
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, res) != nil {
			t.Fatal(err)
		}
	}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	var tables, figs int
	for _, b := range blocks {
		switch b := b.(type) {
		case *Table:
			tables++
			if len(b.Rows) == 0 {
				t.Error("empty table")
			} else if os.Getenv("SERVESIM_VERIFY_JSON") == "" && !strings.Contains(b.Rows[0][4], "2 runs)") {
				t.Errorf("measured cell %q: want the mean with the two runs' range", b.Rows[0][4])
			}
		case *Figure:
			figs++
			if !strings.Contains(string(b.SVG), "<svg") {
				t.Errorf("figure %s is not SVG", b.Name)
			}
		}
	}
	if tables != 1 || figs < 1 {
		t.Errorf("%d tables, %d figures", tables, figs)
	}
	t.Logf("%d blocks, %d figures", len(blocks), figs)
	if blocks, _ := (VerificationSection{}).Blocks(nil); blocks != nil {
		t.Error("a section without a result should be left out")
	}
}

// A ratio of predicted to measured that under- or overflows is left off
// the scatter's log axis instead of breaking it; the other points stay.
func TestScatterSkipsRatiosOutOfRange(t *testing.T) {
	tiny, huge, one := 1e-300, 1e300, 1.0
	tol := verify.DefaultTolerances()
	res := &verify.Result{Candidates: []verify.CandidateResult{
		{Rank: 1, Label: "under", Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &tiny, TTFTMean: &one}, &verify.Metrics{OutTokPerSec: &huge, TTFTMean: &one}, tol)},
		{Rank: 2, Label: "over", Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &huge}, &verify.Metrics{OutTokPerSec: &tiny}, tol)},
	}}
	fig, _, err := scatterFigure(res)
	if err != nil || fig == nil {
		t.Fatalf("figure %v, err %v: want the in-range point drawn", fig, err)
	}
	if svg := string(fig.SVG); !strings.Contains(svg, "#1 under") || strings.Contains(svg, "#2 over") {
		t.Error("want the candidate with an in-range point in the legend, and the one without none left out")
	}
}
