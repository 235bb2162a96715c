package sweep

import (
	"strings"
	"testing"
)

// A capacity capped at search.max_scale says so, and nothing after it:
// the search had nothing more to add, so the note must not trail an
// empty clause ("; ") that reads as a finding left blank.
func TestCappedCapacityNoteHasNoEmptyClause(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[slo]
ttft_p99_ms = 2000
[search]
max_scale = 2
curve_octaves_below = 0
curve_octaves_above = 0
`, steadyTrace(200), Options{Workers: 1})
	r := res.Rows[0]
	want := capacityAtLeast + "search.max_scale 2"
	if r.Outcome != OutcomeOK || r.Note != want || strings.HasSuffix(r.Note, "; ") {
		t.Errorf("outcome %s, note %q: want ok with the note %q", r.Outcome, r.Note, want)
	}
}
