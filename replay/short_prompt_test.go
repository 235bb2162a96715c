package replay

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A row of fewer prompt tokens than the request's overhead plus one byte
// of text cannot be built to its length: it is sent longer than the trace
// says. The summary counts and prints such rows, as it does rows of
// output_tokens 0, so the difference is never silent.
func TestShortPromptRowsAreCounted(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	in := rows(4, 0, 8, 2) // the test engine's overhead is 20 tokens
	in[1].PromptTokens = 64
	in[3].Warmup = true
	s, out := runRows(t, testConfig(srv), in)
	if r := out[0]; r.Error != "" || r.UsagePrompt != 21 {
		t.Fatalf("row of 8 prompt tokens: error %q, usage %d; want 21 measured (20 + 1 byte)", r.Error, r.UsagePrompt)
	}
	if s.ShortPrompt != 2 {
		t.Errorf("ShortPrompt = %d, want 2 (the 64-token row fits, the warm-up row is not counted)", s.ShortPrompt)
	}
	var b bytes.Buffer
	s.Print(&b)
	if !strings.Contains(b.String(), "2 rows have fewer prompt tokens than the request's overhead") {
		t.Errorf("summary does not say it:\n%s", b.String())
	}
}
