package report

import "testing"

// A proxy capture of non-streamed responses has E2E latencies but no
// TTFT: the report draws the E2E distribution and leaves out a TTFT plot
// that would hold no line.
func TestLatencyCDFLeavesOutAnEmptyMetric(t *testing.T) {
	r := handRun("captured", 1)
	r.Lat.TTFT = nil
	d, err := Build("t", &Inputs{Runs: []*Run{r}}, LatencyCDFSection{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range d.Sections[0].Blocks {
		if f, ok := b.(*Figure); ok {
			names = append(names, f.Name)
		}
	}
	if len(names) != 1 || names[0] != "cdf-e2e" {
		t.Errorf("figures %q, want only cdf-e2e", names)
	}
}
