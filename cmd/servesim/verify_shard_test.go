package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A shard's results are ranked within the shard alone (simulate refuses
// --top for one): verify does not take its rank 1 for the sweep's best.
func TestVerifyRefusesAShardsResults(t *testing.T) {
	dir := t.TempDir()
	row := sweep.Row{Index: 0, Label: "continuous", Outcome: sweep.OutcomeOK, SLOMet: true, Rank: 1, Scale: 1, USDPerMOutEst: 1,
		MaxWaitMs: math.NaN(), RateScale: math.NaN(),
		GPUMemoryUtilization: 0.9, SatScale: math.NaN(), KneeScale: math.NaN()}
	for _, tc := range []struct {
		shard sweep.Shard
		ok    bool
	}{{sweep.Shard{Index: 0, Count: 1}, true}, {sweep.Shard{Index: 1, Count: 4}, false}} {
		path := filepath.Join(dir, tc.shard.FileName())
		res := &sweep.Results{Meta: sweep.Meta{Shard: tc.shard, TotalConfigs: 4}, Rows: []sweep.Row{row}}
		if err := sweep.WriteFile(path, res); err != nil {
			t.Fatal(err)
		}
		cf, err := readCandidates(path)
		switch {
		case tc.ok && (err != nil || len(cf.Candidates) != 1):
			t.Errorf("%s: %v", path, err)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "sweep merge")):
			t.Errorf("%s: err = %v, want the file named and sweep merge suggested", path, err)
		}
	}
}
