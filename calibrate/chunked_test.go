package calibrate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// An engine that streams several tokens per chunk shows no step in its
// token gaps: Analyze refuses, saying so, instead of "no observations".
func TestAnalyzeSeveralTokensPerChunkSaysWhy(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TokensPerChunk: 4, ITL: time.Millisecond})
	defer srv.Close()
	plan := &Plan{Runs: []RunSpec{
		{Name: "d1", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{16}, Requests: 2, Repeat: 1},
		{Name: "d2", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{16}, Requests: 2, Repeat: 2},
	}}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	runs, _, err := RunPlan(t.Context(), plan, LiveOptions{Replay: cfg})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Analyze(runs, AnalyzeOptions{HeldOutK: 2})
	if err == nil || !strings.Contains(err.Error(), "several tokens per chunk") || !strings.Contains(err.Error(), "4 of 4") {
		t.Fatalf("err = %v, want one saying the 4 of 4 requests streamed several tokens per chunk", err)
	}
}

// Requests left out of step recovery are counted where the recovered steps
// are printed: a stream of chunks of several tokens is not silently lost.
func TestAnalyzePrintCountsSkippedRequests(t *testing.T) {
	srv := replaytest.New(replaytest.Options{ITL: time.Millisecond})
	defer srv.Close()
	var plan Plan
	for i, c := range []int{1, 2, 1, 2} {
		plan.Runs = append(plan.Runs, RunSpec{Name: fmt.Sprintf("d%d", i), Kind: KindDecode, Concurrency: c, Prompts: []int{64 * (i + 1)}, Outputs: []int{16}, Requests: 2, Repeat: 1 + i/2})
	}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	runs, _, err := RunPlan(t.Context(), &plan, LiveOptions{Replay: cfg})
	if err != nil {
		t.Fatal(err)
	}
	runs[0].Rows[0].Chunks = 2 // its 16 tokens came in two chunks
	a, err := Analyze(runs, AnalyzeOptions{HeldOutK: 2, Window: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	a.Print(&b)
	if !strings.Contains(b.String(), "1 of them skipped (1 with chunks that were not one token each") {
		t.Errorf("printed\n%s\nwant the request skipped counted", b.String())
	}
}
