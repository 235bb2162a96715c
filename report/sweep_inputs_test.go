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

// A checksum stored as bare hex (as profiles, sweeps and verification
// results store a sha256) names the same file as "sha256:HEX": runs whose
// inputs differ only in that form were fed the same input.
func TestInputSumsCompareEitherForm(t *testing.T) {
	a := &Run{Name: "a", InputSums: map[string]string{"in.csv": "sha256:cd"}}
	b := &Run{Name: "b", InputSums: map[string]string{"in.csv": "cd"}}
	if d := inputDifferences(a, b); len(d) != 0 {
		t.Errorf("sha256:cd and cd: %v, want no difference", d)
	}
	c := &Run{Name: "c", InputSums: map[string]string{"in.csv": "ef"}}
	if d := inputDifferences(a, c); len(d) == 0 {
		t.Error("sha256:cd and ef: no difference, want one")
	}
}
