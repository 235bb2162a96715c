package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A sweep's results that give two configs one rank (a file edited or
// written by hand) are refused as a candidates.json that does is: both
// candidates' outputs would be named rankNN, the second overwriting the
// first's, and the verify.json would not read back.
func TestVerifyRefusesResultsWithARepeatedRank(t *testing.T) {
	dir := t.TempDir()
	row := func(index int64) sweep.Row {
		return sweep.Row{Index: index, Label: "continuous", Outcome: sweep.OutcomeOK, SLOMet: true, Rank: 1, Scale: 1, USDPerMOutEst: 1,
			MaxWaitMs: math.NaN(), RateScale: math.NaN(),
			GPUMemoryUtilization: 0.9, SatScale: math.NaN(), KneeScale: math.NaN()}
	}
	path := filepath.Join(dir, "sweep.parquet")
	if err := sweep.WriteFile(path, &sweep.Results{Rows: []sweep.Row{row(0), row(1)}}); err != nil {
		t.Fatal(err)
	}
	_, err := readCandidates(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "rank = 1") {
		t.Errorf("two configs ranked 1: err = %v; want the file and the repeated rank named", err)
	}
}
