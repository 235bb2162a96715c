package calibrate

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Runs whose every request failed (an engine that fell over after the
// text model was calibrated) leave nothing to fit: the error says so,
// with how many failed, not only that the fit had no observations.
func TestAnalyzeEveryRequestFailed(t *testing.T) {
	failed := func(id string) *traces.Request {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.PromptTokens, r.OutputTokens = id, 64, 8
		r.ScheduledSend, r.ActualSend = 0, 0
		r.Error, r.HTTPStatus = "HTTP 500: engine error", 500
		return r
	}
	mk := func(kind string, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: kind + "-r1", Kind: kind, Concurrency: 1, Repeat: 1}, Rows: rows, Summary: Summarize(rows)}
	}
	runs := []*RunResult{
		mk(KindPrefill, failed("a"), failed("b")),
		mk(KindDecode, failed("c"), failed("d"), failed("e")),
	}
	_, err := Analyze(runs, AnalyzeOptions{})
	if err == nil || !strings.Contains(err.Error(), "5 of 5") || !strings.Contains(err.Error(), "failed") {
		t.Errorf("err = %v, want one saying all 5 of 5 measured requests failed", err)
	}
}
