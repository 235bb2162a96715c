package replay

import (
	"strings"
	"testing"
)

// A choice whose index key repeats is not plainly choice 0: go-json keeps
// the last value, so "index":1,"index":0 would pass as choice 0. It fails
// as bad_stream on the fast path and on go-json's (KeepText).
func TestRepeatedChoiceIndexFails(t *testing.T) {
	for _, data := range []string{
		`{"choices":[{"index":1,"index":0,"delta":{"content":"a"}}]}`,
		`{"choices":[{"index":0,"index":0,"delta":{"content":"a"}}]}`,
		`{"choices":[{"index":0,"text":"a","index":2}]}`,
	} {
		for _, keep := range []*strings.Builder{nil, new(strings.Builder)} {
			var cs chunkScan
			problem := readChunk([]byte(data), &cs, 3, keep)
			if problem == "" {
				problem = choiceProblem(&cs, 3)
			}
			if want := KindBadStream + ": chunk 3 has a choice whose index is given twice"; problem != want {
				t.Errorf("%s, keep text %v: problem %q, want %q", data, keep != nil, problem, want)
			}
		}
	}
}
