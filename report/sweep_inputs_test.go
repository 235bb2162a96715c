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

// A sweep row names its trace's workload too: compared with a run of the
// same file spread otherwise, it gets the warning; a sweep written before
// the workload was recorded leaves it unknown.
func TestSweepRowInputWorkload(t *testing.T) {
	sums := map[string]string{"in.csv": "sha256:cd"}
	sw := &Sweep{Name: "s", Meta: sweep.Meta{TraceSHA256: "ab", TraceChecksums: sums, TraceWorkload: map[string]string{"spread_ns": "1000000000"}}}
	row := RowRun(sw, &sweep.Row{Label: "a"})
	plain := &Run{Name: "p", InputSums: sums, InputWorkload: map[string]string{}}
	if d := inputDifferences(row, plain); len(d) == 0 {
		t.Errorf("a sweep row of a spread import and a run of the file as recorded: no warning")
	}
	older := RowRun(&Sweep{Name: "s", Meta: sweep.Meta{TraceSHA256: "ab", TraceChecksums: sums}}, &sweep.Row{Label: "a"})
	if d := inputDifferences(older, plain); len(d) != 0 {
		t.Errorf("a sweep row of unknown workload: %v, want no warning", d)
	}
}

// A sweep row's figures are at its Scale, the trace's arrival rate ×
// Scale: a verify run of that candidate, replayed at time scale 1/Scale,
// ran its workload and compares without a warning.
func TestSweepRowWorkloadAtItsScale(t *testing.T) {
	sums := map[string]string{"in.csv": "sha256:cd"}
	sw := &Sweep{Name: "s", Meta: sweep.Meta{TraceSHA256: "ab", TraceChecksums: sums, TraceWorkload: map[string]string{}}}
	row := RowRun(sw, &sweep.Row{Label: "a", Scale: 4})
	verified := &Run{Name: "rank01", InputSums: sums, InputWorkload: map[string]string{"time_scale": "0.25"}}
	if d := inputDifferences(row, verified); len(d) != 0 {
		t.Errorf("a sweep row at scale 4 and a run at time scale 0.25: %v, want no warning", d)
	}
}
