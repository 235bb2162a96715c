package calibrate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// batchedRun is a decode run of clients requests the engine generated
// together from sendMs: one first token each 10 ms after it, then a
// shared 5 ms decode step for each of out more tokens.
func batchedRun(name string, clients, out int, sendMs float64) *RunResult {
	var rows []*traces.Request
	for i := range clients {
		times := []float64{sendMs + 10 + float64(i)}
		for j := range out {
			times = append(times, sendMs+10+float64(clients)+5*float64(j+1))
		}
		rows = append(rows, row(fmt.Sprintf("%s/%d", name, i), 64, sendMs, times...))
	}
	return &RunResult{Spec: RunSpec{Name: name, Kind: KindDecode, Concurrency: clients}, Rows: rows, Summary: Summarize(rows)}
}

// An engine of slots runs no more sequences at once than it has slots: a
// decode run with more generating at once than the ramp's peak shows the
// engine has at least that many, and the slot cache the resident-token
// terms replay has them too, as the profile's max_seqs counts them. A run
// on an engine of its own (a verification run) says nothing of this
// engine's slots.
func TestAnalyzeSlotsTakeTheMostAnyRunRan(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	for _, kind := range []string{KindPrefill, KindDecode} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		runs = append(runs, r)
	}
	for _, c := range []int{1, 2} { // one at a time: the ramp saturates at 1
		var r *RunResult
		r, t0 = serialRun(KindMemory, c, prompts[:2*c], 16, t0)
		runs = append(runs, r)
	}
	runs = append(runs, batchedRun("decode-c2-p64-r1", 2, 24, float64(t0)/1e6))
	own := batchedRun("verify-c3", 3, 24, float64(t0)/1e6+500)
	own.Slots = 3
	runs = append(runs, own)
	for _, r := range runs {
		r.Meta = traces.Meta{Engine: "llama.cpp server"}
	}
	a, err := Analyze(runs, AnalyzeOptions{Relative: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := a.Concurrency; c == nil || !c.Saturated || c.MaxSeqs != 1 {
		t.Fatalf("probe %+v, want a saturated ramp at 1 sequence", c)
	}
	if a.Slots != 2 {
		t.Errorf("slots %d, want the 2 run decode-c2-p64-r1 ran at once", a.Slots)
	}
	line := printedLine(a, "engine slots:")
	for _, want := range []string{"engine slots: 2 ", "decode-c2-p64-r1"} {
		if !strings.Contains(line, want) {
			t.Errorf("printed %q\nwant it to hold %q", line, want)
		}
	}
	if strings.Contains(line, "the ramp's limit") {
		t.Errorf("printed %q: the ramp's 1 called the limit where 2 ran", line)
	}
}
