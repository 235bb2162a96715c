package calibrate

import (
	"fmt"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// An engine that streams two requests at once and queues the rest: the
// concurrency ramp finds its limit. The ramp sees the slots as the client
// reads the streams, so a queued request's first token comes a TTFT after
// the slot's last: 20 ms, more than a busy machine delays a read by, where
// 1 ms let a late-read last token overlap the next request's first.
func TestProbeConcurrencyFindsSlotLimit(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Slots: 2, TTFT: 20 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	var plan Plan
	for _, c := range []int{1, 2, 4} {
		plan.Runs = append(plan.Runs, RunSpec{Name: fmt.Sprintf("memory-c%d", c), Kind: KindMemory, Concurrency: c, Prompts: []int{64}, Outputs: []int{8}, Requests: 2 * c, Repeat: 1})
	}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	runs, _, err := RunPlan(t.Context(), &plan, LiveOptions{Replay: cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := ProbeConcurrency(runs)
	if p == nil || p.MaxSeqs != 2 || !p.Saturated {
		t.Fatalf("probe %+v, want 2 sequences at most, saturated", p)
	}
	// Two 64-token prompts held at once, each with at least its first
	// token and at most all 8: how far apart the two streams run depends
	// on how fast the client reads them (a loaded machine, or the race
	// detector, put one three tokens behind the other).
	if p.MaxTokens < 2*(64+1) || p.MaxTokens > 2*(64+8) {
		t.Errorf("max tokens %d, want two 64-token prompts held at once with 1 to 8 tokens each", p.MaxTokens)
	}
}
