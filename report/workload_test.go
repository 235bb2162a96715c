package report

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// One input file made into other workloads (sliced, scaled, spread) keeps
// its checksum: compare still warns. What only describes the run or the
// format does not count, and a time scale is the same whether the trace
// was scaled or a live run replayed it scaled.
func TestInputDifferencesOfOneFile(t *testing.T) {
	run := func(extra map[string]string) *Run {
		m := traces.Meta{Extra: extra}
		m.SetChecksum("in.csv", "sha256:aa")
		return &Run{InputSums: m.Checksums, InputWorkload: traces.Workload(m)}
	}
	cases := []struct {
		name string
		a, b map[string]string
		warn bool
	}{
		{"two slices", map[string]string{"slice": "from_ns=0 head=2"}, map[string]string{"slice": "from_ns=0 head=3"}, true},
		{"spread", nil, map[string]string{"spread_ns": "1000000000"}, true},
		{"sharegpt seed", map[string]string{"rate": "2", "seed": "1"}, map[string]string{"rate": "2", "seed": "2"}, true},
		{"run and format notes", map[string]string{"length_estimate": "x"}, map[string]string{"plan": "p", "proxy.start": "t", "replay.base_url": "u"}, false},
		{"scaled or replayed scaled", map[string]string{"slice": "from_ns=0 head=2", "time_scale": "0.5"},
			map[string]string{"slice": "from_ns=0 head=2", "replay.time_scale": "0.5"}, false},
		{"scale 1", map[string]string{"time_scale": "2*0.5"}, map[string]string{"replay.time_scale": "1"}, false},
		{"scaled and not", nil, map[string]string{"time_scale": "0.5"}, true},
	}
	for _, c := range cases {
		got := inputDifferences(run(c.a), run(c.b))
		if (len(got) > 0) != c.warn {
			t.Errorf("%s: inputDifferences = %q, want a warning: %v", c.name, got, c.warn)
		}
	}
	// unknown (a summary written before it recorded the workload): the checksums alone
	old := run(nil)
	old.InputWorkload = nil
	if got := inputDifferences(old, run(map[string]string{"spread_ns": "1"})); len(got) > 0 {
		t.Errorf("unknown workload: inputDifferences = %q, want none", got)
	}
}
