package report

import (
	"strings"
	"testing"
)

// Two runs of one input that served different numbers of requests (a
// replay stopped early writes only the rows it sent) measure different
// workloads: compare says so above the table. Equal counts, a count that
// is not recorded (a sweep row), or runs of unknown inputs (proxy
// captures of other traffic) say nothing.
func TestCompareWarnsOfDifferentRequestCounts(t *testing.T) {
	cases := []struct {
		name       string
		reqA, reqB int64
		sums       map[string]string
		warn       bool
	}{
		{"stopped early", 100, 50, map[string]string{"in.jsonl": "sha256:aa"}, true},
		{"same count", 100, 100, map[string]string{"in.jsonl": "sha256:aa"}, false},
		{"count not recorded", 100, 0, map[string]string{"in.jsonl": "sha256:aa"}, false},
		{"inputs unknown", 100, 50, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := handRun("a", 1), handRun("b", 1)
			a.Metrics.Requests, b.Metrics.Requests = c.reqA, c.reqB
			a.InputSums, b.InputSums = c.sums, c.sums
			var out strings.Builder
			if err := WriteComparison(&out, a, b, compareRuns(t, a, b, 0.1), 0.1); err != nil {
				t.Fatal(err)
			}
			want := "warning: A and B served different numbers of requests from the same input (A: 100; B: 50)"
			if got := strings.Contains(out.String(), "warning: A and B served different numbers"); got != c.warn {
				t.Errorf("want a warning %v (%q), got:\n%s", c.warn, want, out.String())
			}
			if c.warn && !strings.Contains(out.String(), want) {
				t.Errorf("want %q, got:\n%s", want, out.String())
			}
		})
	}
}
