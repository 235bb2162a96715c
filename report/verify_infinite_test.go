package report

import (
	"testing"

	"github.com/servesim/servesim/verify"
)

// A prediction against a measured 0 has an infinite error, not an unknown
// one: the table says ∞ beside its FAIL, as verify's own table does,
// where "—" read as not measured.
func TestVerificationInfiniteErrorIsNotUnknown(t *testing.T) {
	p, m := 5.0, 0.0
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK},
		Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, verify.DefaultTolerances())}}}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tab, ok := b.(*Table); ok {
			for _, row := range tab.Rows {
				switch row[2] {
				case verify.MetricThroughput:
					if row[5] != "∞" || row[7] != "FAIL" {
						t.Errorf("row %q: want error ∞, FAIL", row)
					}
				default: // neither side given: unknown
					if row[5] != "—" {
						t.Errorf("row %q: want error —", row)
					}
				}
			}
			return
		}
	}
	t.Fatal("no table")
}
