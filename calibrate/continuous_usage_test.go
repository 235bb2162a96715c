package calibrate

import (
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// A calibration run's trace says whether its requests asked for usage on
// every chunk, which decides how a chunk's tokens were timed, as it says
// whether they asked to ignore EOS.
func TestRunPlanMetaSaysContinuousUsage(t *testing.T) {
	for _, cont := range []bool{false, true} {
		srv := replaytest.New(replaytest.Options{Record: true, TokensPerChunk: 2, UsageIfAsked: true, ITL: time.Millisecond})
		plan := Plan{Name: "hand", Runs: []RunSpec{
			{Name: "decode", Kind: KindDecode, Concurrency: 1, Prompts: []int{64}, Outputs: []int{4}, Requests: 1, Repeat: 1},
		}}
		cfg := replay.DefaultConfig()
		cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
		cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
		cfg.ContinuousUsage = cont
		res, _, err := RunPlan(t.Context(), &plan, LiveOptions{Replay: cfg, TraceDir: t.TempDir()})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: "false", true: "true"}[cont]
		if got := res[0].Meta.Extra[ContinuousUsageKey]; got != want {
			t.Errorf("ContinuousUsage %v: %s = %q, want %q", cont, ContinuousUsageKey, got, want)
		}
		back, err := ReadRun(res[0].Trace.Path)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Meta.Extra[ContinuousUsageKey]; got != want {
			t.Errorf("ContinuousUsage %v: read back, %s = %q, want %q", cont, ContinuousUsageKey, got, want)
		}
		for _, q := range srv.Requests() {
			if q.Continuous != cont {
				t.Errorf("ContinuousUsage %v: request sent continuous_usage_stats %v", cont, q.Continuous)
			}
		}
	}
}
