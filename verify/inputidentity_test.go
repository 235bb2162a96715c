package verify

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A candidate's measured and simulated traces name their input as a run
// of the source trace would (its checksums and traces.Workload), not by
// the slice file verify writes: over the whole trace they compare with a
// plain simulate of the source, over a --slice they are another workload,
// and a slice that left out the rows failed in the source says so.
func TestCandidateTracesNameTheSourceWorkload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := filepath.Join(dir, "in.csv")
	// Rows 0.1 s apart: the replay waits out each arrival.
	body := "TIMESTAMP,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
		"0,ChatGPT,60,12,72,Conversation log\n0.1,ChatGPT,60,0,60,Conversation log\n0.2,ChatGPT,60,12,72,Conversation log\n0.3,ChatGPT,60,12,72,Conversation log\n"
	if err := os.WriteFile(csv, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := traces.Import(csv, traces.FormatAuto, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srcMeta := src.Meta()
	src.Close()
	for _, tc := range []struct {
		name  string
		slice Slice
		want  []string // the workload keys, besides a time scale
	}{
		{"whole", Slice{}, []string{"drop_failed"}},
		{"head", Slice{Head: 2}, []string{"drop_failed", "slice"}},
	} {
		res, err := Run(context.Background(), Options{
			Candidates: candidates(4), Trace: csv, Slice: tc.slice, Replay: stubReplay(t),
			Out: filepath.Join(dir, tc.name), Tolerances: DefaultTolerances(),
		})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Candidates[0]
		if c.Status != StatusOK {
			t.Fatalf("%s: %s: %s", tc.name, c.Status, c.Detail)
		}
		for _, path := range []string{c.Trace, c.SimTrace} {
			r, err := traces.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			m := r.Meta()
			r.Close()
			if !traces.SameInputs(m.Checksums, srcMeta.Checksums) {
				t.Errorf("%s: %s names inputs %v, want the source's %v", tc.name, filepath.Base(path), m.Checksums, srcMeta.Checksums)
			}
			w := traces.Workload(m)
			delete(w, "time_scale")
			if got := len(w); got != len(tc.want) {
				t.Errorf("%s: %s workload %v, want keys %v", tc.name, filepath.Base(path), w, tc.want)
			}
			for _, k := range tc.want {
				if _, ok := w[k]; !ok {
					t.Errorf("%s: %s workload %v, want keys %v", tc.name, filepath.Base(path), w, tc.want)
				}
			}
		}
	}
}
