package traces

import (
	"strings"
	"testing"
)

// A source of warm-up and failed rows alone has rows, but none to draw
// from: the error says which rows are left out, not that there are none.
func TestSynthResampleEmptySourceSaysWhichRowsAreLeftOut(t *testing.T) {
	warm, failed := &Request{}, &Request{}
	warm.Reset()
	failed.Reset()
	warm.PromptTokens, warm.OutputTokens, warm.Warmup = 10, 1, true
	failed.PromptTokens, failed.SourceFailed = 10, true
	e, err := NewEmpirical(&sliceReader{rows: []*Request{warm, failed}})
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultSynthConfig()
	c.Requests, c.Resample = 2, e
	err = c.Validate()
	for _, w := range []string{"Resample", "warm-up", "failed"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v, want it to contain %q", err, w)
		}
	}
}
