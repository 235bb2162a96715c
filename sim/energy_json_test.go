package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A run without a power model has no energy: it is written as null, as
// the other figures nothing measured, not as -1 J. That holds with or
// without a window, a hit rate or completions, and in a cluster for the
// pool and replicas that lack one; a measured energy is written as it is.
func TestSummaryJSONEnergyNullWithoutPowerModel(t *testing.T) {
	sum := runHalfPoweredCluster(t)
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	// the cluster's, pool b's and its three replicas'
	if n := strings.Count(string(b), `"EnergyJoules":null`); n != 5 {
		t.Errorf("%s holds %d null energies, want 5", b, n)
	}
	if n := strings.Count(string(b), `"EnergyJoules":`); n != 8 {
		t.Errorf("%s holds %d energies, want 8 (each once per summary)", b, n)
	}
	if strings.Contains(string(b), `"EnergyJoules":-`) {
		t.Errorf("%s holds a negative energy", b)
	}

	for _, s := range []Summary{{Completed: 1, Makespan: 2}, {Completed: 1, Makespan: 2, PrefixLookups: 4, PrefixHits: 1, PrefixHitRate: 0.25},
		{Requests: 1, Makespan: 2}, {Requests: 1, Rejected: 1}} {
		s.EnergyJoules = traces.Missing
		b, err := json.Marshal(s)
		if err != nil || !strings.Contains(string(b), `"EnergyJoules":null`) || strings.Count(string(b), `"EnergyJoules"`) != 1 {
			t.Errorf("Marshal(%+v) = %s, %v; want one EnergyJoules, null", s, b, err)
		}
		if s.PrefixLookups > 0 && !strings.Contains(string(b), `"PrefixHitRate":0.25`) {
			t.Errorf("Marshal(%+v) = %s: lost the hit rate", s, b)
		}
		s.EnergyJoules = 12.5
		if b, err := json.Marshal(s); err != nil || !strings.Contains(string(b), `"EnergyJoules":12.5`) {
			t.Errorf("Marshal(%+v) = %s, %v; want the energy as it is", s, b, err)
		}
	}
}
