package calibrate

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A plan with slot resets writes more than a hundred files (the full plan
// writes 126): a refit reads them back in the order they were written,
// 99 before 100 and 100 after 11, as the live calibration fitted them.
func TestLoadRunsOrderPastHundredFiles(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	plan := &Plan{}
	for i := range 51 {
		plan.Runs = append(plan.Runs, RunSpec{Name: fmt.Sprintf("decode-c1-p%d-r1", 8+i), Kind: KindDecode, Concurrency: 1,
			Prompts: []int{8 + i}, Outputs: []int{1}, Requests: 1, Repeat: 1})
	}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	dir := t.TempDir()
	live, _, err := RunPlan(t.Context(), plan, LiveOptions{ResetSlots: true, Replay: cfg, TraceDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 102 {
		t.Fatalf("%d runs, want 102", len(live))
	}
	back, err := LoadRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(live) {
		t.Fatalf("read back %d runs, want %d", len(back), len(live))
	}
	for i := range live {
		if back[i].Trace.Path != live[i].Trace.Path {
			t.Fatalf("run %d read back from %s, written as %s", i, back[i].Trace.Path, live[i].Trace.Path)
		}
	}
}

// A directory that holds the traces of two calibrations (a --trace-out
// used twice, a file copied) is refused, naming both files of the run
// found twice, instead of fitting the run twice and replaying one engine's
// cache through the other's runs.
func TestLoadRunsRefusesRunTwice(t *testing.T) {
	tm := replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 7}
	spec := RunSpec{Name: "decode-c1-p64-r1", Kind: KindDecode, Concurrency: 1, Prompts: []int{64}, Outputs: []int{2}, Requests: 1, Repeat: 1}
	dir := t.TempDir()
	for _, name := range []string{"00-reset", "01-decode-c1-p64-r1", "02-reset", "03-decode-c1-p64-r1 copy"} {
		s := spec
		if strings.HasSuffix(name, "reset") {
			s = RunSpec{Name: "reset", Kind: KindReset, Concurrency: 1, Prompts: []int{16}, Outputs: []int{1}, Requests: 1, Repeat: 1}
		}
		in := &RunResult{Spec: s, Salt: 1, Text: tm, Rows: []*traces.Request{row(s.Name+"/0", 64, 0, 40, 60)}}
		if err := writeRun(filepath.Join(dir, name+".parquet"), traces.Meta{Model: "m"}, in, tm); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadRuns(dir)
	if err == nil || !strings.Contains(err.Error(), "01-decode-c1-p64-r1.parquet") || !strings.Contains(err.Error(), "03-decode-c1-p64-r1 copy.parquet") {
		t.Errorf("err = %v, want one naming both files of run decode-c1-p64-r1", err)
	}
}

// A calibration run's trace that holds no requests (every run sends at
// least one) is refused naming the file, not skipped as a foreign trace
// so that a refit fits one run fewer unseen.
func TestLoadRunsRefusesRunWithoutRequests(t *testing.T) {
	tm := replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 7}
	dir := t.TempDir()
	for i, name := range []string{"decode-c1-p64-r1", "decode-c1-p128-r1"} {
		s := RunSpec{Name: name, Kind: KindDecode, Concurrency: 1, Prompts: []int{64}, Outputs: []int{2}, Requests: 1, Repeat: 1}
		in := &RunResult{Spec: s, Salt: 1, Text: tm, Rows: []*traces.Request{row(name+"/0", 64, 0, 40, 60)}}
		if i == 1 {
			in.Rows = nil
		}
		if err := writeRun(filepath.Join(dir, fmt.Sprintf("%02d-%s.parquet", i, name)), traces.Meta{Model: "m"}, in, tm); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := LoadRuns(dir)
	if err == nil || !strings.Contains(err.Error(), "01-decode-c1-p128-r1.parquet") {
		t.Errorf("LoadRuns = %d runs, %v, want an error naming 01-decode-c1-p128-r1.parquet", len(runs), err)
	}
}
