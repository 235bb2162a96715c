package calibrate

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A request whose stream failed ran in the engine until then, not for the
// rest of the run: steps after its failure, of a request that ran alone,
// are kept.
func TestRecoverStepsEndsFailedRequestsTaintAtItsFailure(t *testing.T) {
	a := row("a", 100, 0, 10, 20)
	a.Error, a.HTTPStatus = "stream: connection reset", 200
	a.TokenTimes, a.FirstToken, a.LastToken = nil, traces.Missing, traces.Missing
	a.UsagePrompt, a.UsageOutput = traces.Missing, traces.Missing
	a.FailTime = 25e6
	b := row("b", 100, 45, 50, 60, 70, 80)
	obs, st, err := RecoverSteps(nil, []*traces.Request{a, b}, &RecoverSettings{Tolerance: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 4 || st.Tainted != 0 {
		t.Fatalf("%d steps kept, %d tainted; want b's 4 steps from 45 ms, all after a failed at 25 ms", len(obs), st.Tainted)
	}
	// Without the failure's time (an older trace) it may have run to the end.
	a.FailTime = traces.Missing
	if obs, _, _ = RecoverSteps(nil, []*traces.Request{a, b}, &RecoverSettings{Tolerance: 1e6}); len(obs) != 0 {
		t.Errorf("without failed_ns: %d steps kept, want 0", len(obs))
	}
}
