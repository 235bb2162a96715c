package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

var replicaEnergy = regexp.MustCompile(`(?m)^( {12}"EnergyJoules": )[0-9.]+`)

// simulate writes an energy it did not measure (no power model) as null,
// as its other unknown figures; decoding a null leaves 0, which would read
// as a measured 0 J. A file written when it was -1 reads as unknown too,
// in the cluster's pools and replicas as at the top, and any other
// negative energy is refused.
func TestParseSummaryReadsNullEnergyAsUnknown(t *testing.T) {
	cluster, err := os.ReadFile(filepath.Join("testdata", "summary-cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, unknown := range []string{"null", "-1"} {
		// the cluster's and its replicas' (indented deepest), not the pool's
		data := replicaEnergy.ReplaceAllString(string(cluster), "${1}"+unknown)
		data = strings.Replace(data, `"EnergyJoules": 332.36423869383674`, `"EnergyJoules": `+unknown, 1)
		results, err := ParseSummary([]byte(data), "summary.json")
		if err != nil {
			t.Fatalf("%s: %v", unknown, err)
		}
		res := results[0]
		if !energyUnmeasured(resultRun(res)) {
			t.Errorf("%s: energy %v J: want unknown", unknown, res.Summary.EnergyJoules)
		}
		if e := res.Pools[0].EnergyJoules; !(e > 0) {
			t.Errorf("%s: pool energy %v J: want the measured figure kept", unknown, e)
		}
		for i, r := range res.Pools[0].Replicas {
			if !(r.EnergyJoules < 0) {
				t.Errorf("%s: replica %d energy %v J: want unknown", unknown, i, r.EnergyJoules)
			}
		}
	}
	bad := editSummary(t, func(_, s map[string]any) { s["EnergyJoules"] = -5 })
	if _, err := ParseSummary(bad, "s.json"); err == nil || !strings.Contains(err.Error(), "s.json: [0].Summary: EnergyJoules = -5") {
		t.Errorf("a negative energy: err = %v", err)
	}
}

// An unknown energy survives simulate's writing and the report's reading.
func TestSummaryEnergyUnknownRoundTrips(t *testing.T) {
	res := handRun("unpowered", 0.1).Result
	res.Summary.EnergyJoules = traces.Missing
	data, err := json.Marshal([]*plan.Result{res})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"EnergyJoules":null`) {
		t.Fatalf("%s: want the unknown energy written as null", data)
	}
	back, err := ParseSummary(data, "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if e := back[0].Summary.EnergyJoules; e != traces.Missing {
		t.Errorf("read back energy %v J, want unknown (%v)", e, traces.Missing)
	}
}
