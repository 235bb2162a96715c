package calibrate

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A profile records the longest context its fitted runs held (prompt as
// the server counted it, plus the tokens generated): the attention terms
// are measured up to it. Failed and warm-up rows ran no measured steps.
func TestProfileRecordsLongestFittedContext(t *testing.T) {
	row := func(prompt, usage, out int32, failed, warmup bool) *traces.Request {
		r := &traces.Request{PromptTokens: prompt, UsagePrompt: usage, UsageOutput: out, Warmup: warmup,
			ActualSend: 1, FirstToken: 2, LastToken: 3, HTTPStatus: 200}
		if failed {
			r.Error = "reset"
		}
		return r
	}
	runs := []*RunResult{
		{Spec: RunSpec{Kind: KindPrefill}, Rows: []*traces.Request{row(1000, 1020, 1, false, false), row(9000, traces.Missing, 1, true, false)}},
		{Spec: RunSpec{Kind: KindDecode}, Rows: []*traces.Request{row(500, traces.Missing, 600, false, false), row(8000, 8000, 10, false, true)}},
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}}
	if got := a.Profile(EngineInfo{}, nil, time.Now()).MaxContext; got != 1100 {
		t.Errorf("max_context %d, want 1100 (500 prompt + 600 output; the failed and warm-up rows left out)", got)
	}
	if got := (&Analysis{Fit: &Fit{}}).Profile(EngineInfo{}, nil, time.Now()).MaxContext; got != 0 {
		t.Errorf("max_context %d without runs, want 0 (not recorded)", got)
	}
}
