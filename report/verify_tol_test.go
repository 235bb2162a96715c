package report

import (
	"testing"

	"github.com/servesim/servesim/verify"
)

// The tolerance column shows the tolerance verify gated on: --tol-ttft
// 0.025 is 2.5%, not a rounded 2% beside an error of +2.3% that passed.
func TestVerificationToleranceIsNotRounded(t *testing.T) {
	p, m := 1.023, 1.0
	tol := verify.DefaultTolerances()
	tol.Throughput = 0.025
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK},
		Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, tol)}}}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tab, ok := b.(*Table); ok {
			row := tab.Rows[0]
			if row[2] != verify.MetricThroughput || row[6] != "2.5%" || row[7] != "pass" {
				t.Errorf("row %q: want the throughput row with tolerance 2.5%%, passing", row)
			}
			return
		}
	}
	t.Fatal("no table")
}
