package verify

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// consistencyRow is a measured row: a success with its text, or a failure.
func consistencyRow(id, text string, ok bool) *traces.Request {
	r := &traces.Request{ID: id, OutputText: text, HTTPStatus: 200}
	if !ok {
		r.Error = "http_5xx: 500"
	}
	return r
}

// A successful request that answered nothing in one candidate and text in
// another differs; a request that failed in a candidate is not compared
// there.
func TestOutputTextsEmptyAnswerDiffers(t *testing.T) {
	row := consistencyRow
	a := outputTexts([]*traces.Request{row("r1", "", true), row("r2", "same", true), row("r3", "", false)})
	b := outputTexts([]*traces.Request{row("r1", "text", true), row("r2", "same", true), row("r3", "x", true)})
	cs := CompareOutputs([]string{"a", "b"}, []map[RequestKey]string{a, b})
	if cs.Compared != 2 || cs.Differ != 1 || len(cs.Examples) != 1 || cs.Examples[0] != "r1" {
		t.Errorf("compared %d differ %d examples %v: want r1 and r2 compared, r1 differing", cs.Compared, cs.Differ, cs.Examples)
	}
}

// verify always keeps the generated text, so a run whose every successful
// answer is empty answered with empty texts: they are compared like any
// other, whichever other answers the run gave. Two successful empty
// answers are the same answer; an empty answer against text differs, and
// a candidate that answered only empty texts is still the reference the
// others are compared with.
func TestOutputTextsAllEmptyRunIsCompared(t *testing.T) {
	row := consistencyRow
	empty := outputTexts([]*traces.Request{row("r1", "", true), row("r2", "", true), row("r3", "", false)})
	alsoEmpty := outputTexts([]*traces.Request{row("r1", "", true), row("r2", "", true), row("r3", "", true)})
	text := outputTexts([]*traces.Request{row("r1", "text", true), row("r2", "", true), row("r3", "x", true)})

	cs := CompareOutputs([]string{"empty", "text"}, []map[RequestKey]string{empty, text})
	if cs.Compared != 2 || cs.Differ != 1 || len(cs.Examples) != 1 || cs.Examples[0] != "r1" {
		t.Errorf("all-empty against text: compared %d differ %d examples %v: want r1 and r2 compared, r1 differing", cs.Compared, cs.Differ, cs.Examples)
	}
	if cs.Reference != "empty" || len(cs.PerCandidate) != 1 || cs.PerCandidate[0].Compared != 2 || cs.PerCandidate[0].Differ != 1 {
		t.Errorf("reference %q, per candidate %+v: want text compared with empty on r1 and r2, r1 differing", cs.Reference, cs.PerCandidate)
	}
	cs = CompareOutputs([]string{"empty", "also-empty"}, []map[RequestKey]string{empty, alsoEmpty})
	if cs.Compared != 2 || cs.Differ != 0 {
		t.Errorf("empty against empty, both successful: compared %d differ %d, want 2 compared, none differing", cs.Compared, cs.Differ)
	}
	// One request: its empty answer counts as it does beside other answers.
	one := outputTexts([]*traces.Request{row("r1", "", true)})
	cs = CompareOutputs([]string{"one", "text"}, []map[RequestKey]string{one, text})
	if cs.Compared != 1 || cs.Differ != 1 {
		t.Errorf("a one-request run's empty answer against text: compared %d differ %d, want 1 and 1", cs.Compared, cs.Differ)
	}
}

// A trace may give two requests the same id: each is compared with itself
// in the other candidate (the rows are replayed in the same order), not
// merged into one, and the example names which of them differed.
func TestOutputTextsRepeatedIDsPairByRow(t *testing.T) {
	row := consistencyRow
	a := outputTexts([]*traces.Request{row("r", "one", true), row("r", "two", true), row("s", "x", true)})
	b := outputTexts([]*traces.Request{row("r", "one", true), row("r", "TWO", true), row("s", "x", true)})
	cs := CompareOutputs([]string{"a", "b"}, []map[RequestKey]string{a, b})
	if cs.Compared != 3 || cs.Differ != 1 || len(cs.Examples) != 1 || cs.Examples[0] != "r (row 2 with this id)" {
		t.Errorf("compared %d differ %d examples %q: want 3 compared, the second r differing", cs.Compared, cs.Differ, cs.Examples)
	}
	// A failed first r in one candidate leaves the second paired as before.
	c := outputTexts([]*traces.Request{row("r", "", false), row("r", "two", true), row("s", "x", true)})
	cs = CompareOutputs([]string{"a", "c"}, []map[RequestKey]string{a, c})
	if cs.Compared != 2 || cs.Differ != 0 {
		t.Errorf("a failed first r: compared %d differ %d, want the second r and s compared, none differing", cs.Compared, cs.Differ)
	}
}
