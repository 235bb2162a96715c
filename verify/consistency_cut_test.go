package verify

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A text the replay cut at its bound is not the whole answer: two cut at
// the same bytes may differ past it, and it is no answer to hold against
// another's whole one. It is left out as a failed request is, compared
// among the others only.
func TestOutputTextsLeaveOutCutTexts(t *testing.T) {
	row := consistencyRow
	cut := "abc… [servesim: output text cut at 3 of 40 bytes]"
	a := outputTexts([]*traces.Request{row("r1", cut, true), row("r2", "same", true), row("r3", cut, true)})
	b := outputTexts([]*traces.Request{row("r1", cut, true), row("r2", "same", true), row("r3", "abcdef", true)})
	c := outputTexts([]*traces.Request{row("r1", "x", true), row("r2", "same", true), row("r3", "abcxyz", true)})
	cs := CompareOutputs([]string{"a", "b"}, []map[RequestKey]string{a, b})
	if cs.Compared != 1 || cs.Differ != 0 {
		t.Errorf("a against b: compared %d differ %d, want r2 alone compared (r1 and r3 cut in a), none differing", cs.Compared, cs.Differ)
	}
	cs = CompareOutputs([]string{"a", "b", "c"}, []map[RequestKey]string{a, b, c})
	if cs.Compared != 2 || cs.Differ != 1 || len(cs.Examples) != 1 || cs.Examples[0] != "r3" {
		t.Errorf("a, b and c: compared %d differ %d examples %v: want r2 and r3 compared (r1 whole in c alone), r3 differing", cs.Compared, cs.Differ, cs.Examples)
	}
	if len(cs.PerCandidate) != 2 || cs.PerCandidate[0].Compared != 1 || cs.PerCandidate[1].Compared != 1 {
		t.Errorf("per candidate %+v: want b and c each compared with a on r2 alone", cs.PerCandidate)
	}
}
