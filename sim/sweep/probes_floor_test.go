package sweep

import (
	"fmt"
	"strings"
	"testing"
)

// Halving from start_scale 1 reaches min_scale 2^-10 on the 11th probe:
// with max_probes = 11 the search ran its course, and the note says the
// SLO fails down to min_scale, not that the probes ran out; with 10 they
// did.
func TestInfeasibleNoteAtTheLastProbe(t *testing.T) {
	for probes, want := range map[int]string{
		10: "no scale met the SLO within search.max_probes = 10",
		11: "the SLO fails at every probed scale down to 0.0009765625",
	} {
		res := runSpecOn(t, fmt.Sprintf("base = \"base.toml\"\n[slo]\nttft_p99_ms = 0.001\n[search]\nmax_probes = %d\n", probes), handTrace(50, 20), Options{})
		if r := res.Rows[0]; r.Outcome != OutcomeInfeasible || int(r.Probes) != probes || !strings.HasPrefix(r.Note, want) {
			t.Errorf("max_probes %d: %s after %d probes, note %q; want %q", probes, r.Outcome, r.Probes, r.Note, want)
		}
	}
}
