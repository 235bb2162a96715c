package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A sweep config that met its SLO in A and has no result in B (the SLO
// fails at every scale, or the config errs) regressed, though none of its
// metrics was measured in B.
func TestCompareSweepRowWithoutResultRegresses(t *testing.T) {
	sw := &Sweep{Name: "s", Path: "s.parquet"}
	ok := sweep.Row{Label: "ok", Outcome: sweep.OutcomeOK, Strategy: "continuous", Device: "H100", DeviceCount: 1, Replicas: 1,
		ReqPerSec: 4, OutTokPerSec: 1000, TTFTP50: 0.1, TTFTP99: 0.2, TPOTMean: 0.01, TPOTP99: 0.02, E2EP99: 6,
		DeviceSeconds: 900, USDPerMOutEst: 1, USDPerMOutBilled: math.NaN()}
	none := ok
	none.Label, none.Outcome, none.Note = "none", sweep.OutcomeInfeasible, "the SLO fails at every probed scale down to 0.1"
	for _, f := range []*float64{&none.ReqPerSec, &none.OutTokPerSec, &none.TTFTP50, &none.TTFTP99, &none.TPOTMean,
		&none.TPOTP99, &none.E2EP99, &none.DeviceSeconds, &none.USDPerMOutEst} {
		*f = math.NaN()
	}
	a, b := RowRun(sw, &ok), RowRun(sw, &none)
	cs := compareRuns(t, a, b, 0.1)
	if n := Regressions(cs); n == 0 {
		var out strings.Builder
		WriteComparison(&out, a, b, cs, 0.1)
		t.Errorf("ok → infeasible: want a regression, got none:\n%s", out.String())
	}
	if n := Regressions(compareRuns(t, b, a, 0.1)); n != 0 {
		t.Errorf("infeasible → ok: want no regression, got %d", n)
	}
}
