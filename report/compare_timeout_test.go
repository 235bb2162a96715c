package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A replay fails each request that outlasts its timeout: a shorter one
// turns the slowest requests into failures and cuts the latency tail, so
// two runs under different timeouts get a warning above the table. The
// same timeout, written either way, or one not recorded says nothing.
func TestCompareWarnsOfDifferentTimeouts(t *testing.T) {
	cases := []struct {
		name     string
		tA, tB   string
		wantWarn string
	}{
		{"shorter", "10m0s", "30s", "warning: A and B ran with different per-request timeouts (A: 10m0s; B: 30s; a shorter one fails the slowest requests and cuts the latency tail): their figures do not compare"},
		{"same", "10m0s", "10m0s", ""},
		{"same written otherwise", "1m0s", "60s", ""},
		{"not recorded", "10m0s", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			timeout := func(v string) map[string]string {
				if v == "" {
					return nil
				}
				return map[string]string{"replay.timeout": v}
			}
			a := scheduleRunWith(t, "a", 50, 10, 1, traces.SLO{}, timeout(c.tA))
			b := scheduleRunWith(t, "b", 50, 10, 1, traces.SLO{}, timeout(c.tB))
			var out strings.Builder
			if err := WriteComparison(&out, a, b, compareRuns(t, a, b, 0.1), 0.1); err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(out.String(), "timeout")
			if got != (c.wantWarn != "") || c.wantWarn != "" && !strings.Contains(out.String(), c.wantWarn) {
				t.Errorf("want warning %q, got:\n%s", c.wantWarn, out.String())
			}
		})
	}
}
