package calibrate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// An engine that streams several tokens per chunk shows no step in its
// token gaps: Analyze refuses, saying so, instead of "no observations".
// The runs are written with known chunk times, not measured live: on a
// loaded host a request's chunks can all arrive in one read, and its
// tokens then share one time instead of looking chunked.
func TestAnalyzeSeveralTokensPerChunkSaysWhy(t *testing.T) {
	d1, t0 := serialRunStep(KindDecode, 2, []int{64, 64}, 4, 0, 4e6)
	d2, _ := serialRunStep(KindDecode, 2, []int{64, 64}, 4, t0, 4e6)
	d2.Spec.Repeat = 2
	for _, r := range append(d1.Rows, d2.Rows...) {
		chunkTokens(r, 4)
	}
	_, err := Analyze([]*RunResult{d1, d2}, AnalyzeOptions{HeldOutK: 2})
	if err == nil || !strings.Contains(err.Error(), "several tokens per chunk") || !strings.Contains(err.Error(), "4 of 4") {
		t.Fatalf("err = %v, want one saying the 4 of 4 requests streamed several tokens per chunk", err)
	}
}

// chunkTokens makes each of r's token times a chunk of k tokens, timed as
// replay times them: the first chunk's tokens at its arrival, a later
// chunk's spread evenly across the gap since the one before.
func chunkTokens(r *traces.Request, k int) {
	chunks := r.TokenTimes
	r.TokenTimes = nil
	for i, c := range chunks {
		for j := range k {
			tok := c
			if i > 0 {
				tok = chunks[i-1] + (c-chunks[i-1])*int64(j+1)/int64(k)
			}
			r.TokenTimes = append(r.TokenTimes, tok)
		}
	}
	r.Chunks = int32(len(chunks))
	r.OutputTokens, r.UsageOutput = int32(len(r.TokenTimes)), int32(len(r.TokenTimes))
}

// Requests left out of step recovery are counted where the recovered steps
// are printed: a stream of chunks of several tokens is not silently lost.
func TestAnalyzePrintCountsSkippedRequests(t *testing.T) {
	var runs []*RunResult
	t0 := int64(0)
	for i, c := range []int{1, 2, 1, 2} {
		var r *RunResult
		r, t0 = serialRunStep(KindDecode, c, []int{64 * (i + 1), 64 * (i + 1)}, 16, t0, 1e6)
		r.Spec.Name, r.Spec.Repeat = fmt.Sprintf("d%d", i), 1+i/2
		runs = append(runs, r)
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
