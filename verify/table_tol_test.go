package verify

import (
	"strings"
	"testing"
)

// The console table shows each tolerance as given (2.5%, not a rounded
// 2% or 3%), as the report's verification table does.
func TestWriteTableShowsTolerancesAsGiven(t *testing.T) {
	tol := Tolerances{Throughput: 0.025, TTFT: 0.125, TPOT: 0.1, P99: 0.2, Cost: 0.005}
	pass := true
	c := CandidateResult{Rank: 1, Label: "a", Repeat: Repeat{Status: StatusOK},
		Rows: CompareMetrics(&Metrics{OutTokPerSec: f(100), TTFTMean: f(1), DeviceSeconds: f(10)},
			&Metrics{OutTokPerSec: f(101), TTFTMean: f(1.01), DeviceSeconds: f(10.01)}, tol), Pass: &pass}
	res := &Result{Tolerances: tol, Candidates: []CandidateResult{c}}
	var b strings.Builder
	res.WriteTable(&b)
	for _, want := range []string{"2.5%", "12.5%", "0.5%"} {
		if !strings.Contains(b.String(), " "+want+" ") {
			t.Errorf("table lacks the tolerance %s:\n%s", want, b.String())
		}
	}
}

// With one measured candidate there is no order to hold: the table says
// n/a, not that the simulator's ranking failed.
func TestWriteTableRankingOfOneCandidate(t *testing.T) {
	c := CandidateResult{Rank: 1, Label: "a", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(1)}}}
	res := &Result{Candidates: []CandidateResult{c}}
	res.finish()
	var b strings.Builder
	res.WriteTable(&b)
	if strings.Contains(b.String(), "held: false") || !strings.Contains(b.String(), "held: n/a") {
		t.Errorf("one candidate's ranking:\n%s\nwant held: n/a", b.String())
	}
}
