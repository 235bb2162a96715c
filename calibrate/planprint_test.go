package calibrate

import (
	"bytes"
	"strings"
	"testing"
)

// The header's run and request counts are the measured ones, as it says:
// the warm-up is told apart, not added in.
func TestPlanPrintExcludesWarmup(t *testing.T) {
	p := &Plan{Name: "hand", Runs: []RunSpec{
		WarmupRun(100), // two requests
		{Name: "prefill", Kind: KindPrefill, Concurrency: 1, Prompts: []int{64, 128}, Outputs: []int{1}, Requests: 6, Repeat: 1},
		{Name: "decode", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{32}, Requests: 4, Repeat: 1},
	}}
	var b bytes.Buffer
	p.Print(&b)
	header, _, _ := strings.Cut(b.String(), "\n")
	if want := "plan hand: 2 runs, 10 requests, after a warm-up of 2 requests, not measured"; !strings.HasPrefix(header, want) {
		t.Errorf("header %q\nwant it to open %q", header, want)
	}
}

// The plan prints its size before it runs, so that a user can judge the
// engine time: requests, prompt tokens and output tokens for each kind of
// run and for the whole plan, the warm-up's included (the engine computes
// them all). Prompt and output lengths cycle over a run's requests, and an
// admission run's first request asks for its carrier's output.
func TestPlanPrintTotals(t *testing.T) {
	p := &Plan{Name: "hand", Runs: []RunSpec{
		WarmupRun(100), // 100 + 64 prompt tokens, 1 + 8 output
		{Name: "prefill", Kind: KindPrefill, Concurrency: 1, Prompts: []int{64, 128}, Outputs: []int{1}, Requests: 6, Repeat: 1},
		{Name: "decode-r1", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{32}, Requests: 4, Repeat: 1},
		{Name: "admission", Kind: KindAdmission, Concurrency: 2, Prompts: []int{64}, Outputs: []int{4}, Carrier: 100, Requests: 3, Repeat: 1},
		{Name: "decode-r2", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{32}, Requests: 4, Repeat: 2},
	}}
	var b bytes.Buffer
	p.Print(&b)
	want := map[string]string{
		"warmup":    "2 164 9",
		"prefill":   "6 576 6",
		"decode":    "8 512 256",
		"admission": "3 192 108",
		"all":       "19 1444 379",
	}
	got := map[string]string{}
	inTotals := false
	for l := range strings.Lines(b.String()) {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "totals" {
			inTotals = true
			continue
		}
		if inTotals && len(f) >= 4 {
			got[f[0]] = strings.Join(f[1:4], " ")
		}
	}
	for kind, w := range want {
		if got[kind] != w {
			t.Errorf("totals of %s: %q, want %q (requests, prompt tokens, output tokens)\n%s", kind, got[kind], w, b.String())
		}
	}
}
