package calibrate

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A paged engine (vLLM's max_num_seqs, SGLang, TGI) has a hard sequence
// limit too: a ramp past it must not make it a slot engine. What the runs
// recorded about the engine decides: its name, or a KV capacity reported
// on /metrics (vLLM's and SGLang's metrics); an engine of slots, or one
// not known, keeps the ramp's limit as its slots.
func TestAnalyzeSaturatedPagedEngineGetsNoSlotCache(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	vllmKV := `{"source":"vllm:cache_config_info","tokens":16000,"blocks":1000,"block_size":16,"gpu_memory_utilization":0.85}`
	for _, tc := range []struct {
		name      string
		meta      traces.Meta
		wantSlots int
	}{
		{"vllm by name", traces.Meta{Engine: "vllm 0.8.5"}, 0},
		{"sglang by name", traces.Meta{Engine: "SGLang"}, 0},
		{"vllm by its metrics", traces.Meta{Extra: map[string]string{ReportedKVKey: vllmKV}}, 0},
		{"ollama", traces.Meta{Engine: "ollama 0.6.5"}, 1},
		{"llama.cpp", traces.Meta{Engine: "llama.cpp server"}, 1},
		{"unknown", traces.Meta{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs []*RunResult
			t0 := int64(0)
			for _, kind := range []string{KindPrefill, KindDecode} {
				var r *RunResult
				r, t0 = serialRun(kind, 1, prompts, 24, t0)
				runs = append(runs, r)
			}
			for _, c := range []int{1, 2} { // one slot: the ramp saturates
				var r *RunResult
				r, t0 = serialRun(KindMemory, c, prompts[:2*c], 16, t0)
				runs = append(runs, r)
			}
			for _, r := range runs {
				r.Meta = tc.meta
			}
			a, err := Analyze(runs, AnalyzeOptions{Relative: true})
			if err != nil {
				t.Fatal(err)
			}
			if c := a.Concurrency; c == nil || !c.Saturated || c.MaxSeqs != 1 {
				t.Fatalf("probe %+v, want a saturated ramp at 1 sequence", c)
			}
			if a.Slots != tc.wantSlots {
				t.Errorf("slots %d, want %d", a.Slots, tc.wantSlots)
			}
			for _, term := range []Term{TermPrefillResident, TermDecodeResident, TermResident} {
				if off := a.Fit.Step.At(term).Status == StatusOff; off != (tc.wantSlots == 0) {
					t.Errorf("%s: status %s, want off only for a paged engine", term, a.Fit.Step.At(term).Status)
				}
			}
		})
	}
}

// An engine the runs do not name as one of slots (no name, or one
// calibrate does not know, such as a TGI behind a proxy) gets the ramp's
// limit as its slots by assumption: the analysis says so, and how to name
// a paged engine, where a named slot engine's says which name decided.
// Runs that name an engine take another only from a new live calibration
// (a refit refuses an --engine that contradicts its traces); unnamed ones
// take it from a refit too.
func TestAnalyzeSaysWhenSlotsAreAssumed(t *testing.T) {
	for _, tc := range []struct {
		name, engine, want, hint string
	}{
		{"unknown", "mistral.rs 0.5", `assumed: engine "mistral.rs 0.5" is not one calibrate knows`,
			"calibrating it live again with --engine vllm, --engine sglang, --engine tgi turns the resident-token terms off (a refit keeps the traces' engine)"},
		{"unnamed", "", "assumed: the runs name no engine",
			"--engine vllm, --engine sglang, --engine tgi, live or with --from-traces, turns the resident-token terms off"},
		{"llama.cpp", "llama.cpp server", `engine slots: 1 (the ramp's limit; engine "llama.cpp server")`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
			var runs []*RunResult
			t0 := int64(0)
			for _, kind := range []string{KindPrefill, KindDecode} {
				var r *RunResult
				r, t0 = serialRun(kind, 1, prompts, 24, t0)
				runs = append(runs, r)
			}
			for _, c := range []int{1, 2} {
				var r *RunResult
				r, t0 = serialRun(KindMemory, c, prompts[:2*c], 16, t0)
				runs = append(runs, r)
			}
			for _, r := range runs {
				r.Meta = traces.Meta{Engine: tc.engine}
			}
			a, err := Analyze(runs, AnalyzeOptions{Relative: true})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			a.Print(&b)
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("analysis does not say %q:\n%s", tc.want, b.String())
			}
			if tc.hint != "" && !strings.Contains(b.String(), tc.hint) {
				t.Errorf("analysis does not advise %q:\n%s", tc.hint, b.String())
			}
			if tc.engine == "llama.cpp server" && strings.Contains(b.String(), "assumed") {
				t.Errorf("a named slot engine is said to be assumed:\n%s", b.String())
			}
		})
	}
}
