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
