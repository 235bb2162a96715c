package calibrate

import (
	"fmt"
	"testing"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
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
