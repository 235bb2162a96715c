package verify

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A successful request that answered nothing in one candidate and text in
// another differs; a run that kept no text at all is not compared.
func TestOutputTextsEmptyAnswerDiffers(t *testing.T) {
	row := func(id, text string, ok bool) *traces.Request {
		r := &traces.Request{ID: id, OutputText: text, HTTPStatus: 200}
		if !ok {
			r.Error = "http_5xx: 500"
		}
		return r
	}
	a := outputTexts([]*traces.Request{row("r1", "", true), row("r2", "same", true), row("r3", "", false)})
	b := outputTexts([]*traces.Request{row("r1", "text", true), row("r2", "same", true), row("r3", "x", true)})
	cs := CompareOutputs([]string{"a", "b"}, []map[string]string{a, b})
	if cs.Compared != 2 || cs.Differ != 1 || len(cs.Examples) != 1 || cs.Examples[0] != "r1" {
		t.Errorf("compared %d differ %d examples %v: want r1 and r2 compared, r1 differing", cs.Compared, cs.Differ, cs.Examples)
	}
	none := outputTexts([]*traces.Request{row("r1", "", true), row("r2", "", true)})
	if cs := CompareOutputs([]string{"none", "b"}, []map[string]string{none, b}); cs.Compared != 0 {
		t.Errorf("a run without text: compared %d, want 0", cs.Compared)
	}
}
