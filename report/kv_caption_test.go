package report

import (
	"strings"
	"testing"
)

// The caption explains "row N" only when the panels are titled so: a
// run whose own name starts with "row " is titled by that name.
func TestKVCaptionExplainsRowsOnlyWhenUsed(t *testing.T) {
	long := strings.Repeat("x", 60)
	for _, c := range []struct {
		runs []*Run
		want bool
	}{
		{[]*Run{handRun("row 2 baseline", 0.1), handRun("other", 0.2)}, false},
		{[]*Run{handRun(long+"a"+long, 0.1), handRun(long+"b"+long, 0.2)}, true}, // alike but in the middle, which is cut
	} {
		d, err := Build("t", &Inputs{Runs: c.runs})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Sections {
			for _, b := range s.Blocks {
				if f, ok := b.(*Figure); ok && f.Name == "kv-utilization" && strings.Contains(f.Caption, "Row N") != c.want {
					t.Errorf("runs %q: caption %q, want Row N explained: %v", c.runs[0].Name, f.Caption, c.want)
				}
			}
		}
	}
}
