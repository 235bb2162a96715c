package report

import (
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A sweep row names its trace's files by checksum: compared with a
// simulated or live run of another input, it gets the warning.
func TestSweepRowInputSums(t *testing.T) {
	sw := &Sweep{Name: "s", Meta: sweep.Meta{TraceSHA256: "ab", TraceChecksums: map[string]string{"in.csv": "sha256:cd"}}}
	row := RowRun(sw, &sweep.Row{Label: "a"})
	other := &Run{Name: "p", InputSums: map[string]string{"other.csv": "sha256:ef"}}
	if d := inputDifferences(row, other); len(d) == 0 {
		t.Errorf("a sweep row and a run of another input: no warning")
	}
	same := &Run{Name: "p", InputSums: map[string]string{"in.csv": "sha256:cd"}}
	if d := inputDifferences(row, same); len(d) != 0 {
		t.Errorf("a sweep row and a run of its input: %v", d)
	}
}
