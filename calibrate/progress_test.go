package calibrate

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// The progress lines count the measured runs, as the plan's header does:
// the warm-up is told apart, not counted in.
func TestRunPlanProgressCountsMeasuredRuns(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Slots: 2, TTFT: time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	plan := Plan{Name: "hand", Runs: []RunSpec{
		WarmupRun(64),
		{Name: "prefill", Kind: KindPrefill, Concurrency: 1, Prompts: []int{64}, Outputs: []int{1}, Requests: 2, Repeat: 1},
		{Name: "decode", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{4}, Requests: 2, Repeat: 1},
	}}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	var log bytes.Buffer
	if _, _, err := RunPlan(t.Context(), &plan, LiveOptions{Replay: cfg, Log: &log}); err != nil {
		t.Fatal(err)
	}
	var header bytes.Buffer
	plan.Print(&header)
	if !strings.HasPrefix(header.String(), "plan hand: 2 runs,") {
		t.Fatalf("plan header %q, want 2 runs", header.String())
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	want := []string{"[ -/2] warmup", "[ 1/2] prefill", "[ 2/2] decode"}
	if len(lines) != len(want) {
		t.Fatalf("progress:\n%s\nwant %d lines", log.String(), len(want))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("progress line %q, want it to hold %q", lines[i], w)
		}
	}
}
