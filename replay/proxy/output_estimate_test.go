package proxy

import (
	"fmt"
	"testing"
)

// Without usage and without output text, what a row was sized at depends
// on what is known: a success read whole generated nothing; a failure, or
// a success whose body could not be read, may have run up to the cap over
// all its sequences (n or best_of, for each prompt a completions request
// batches), as outputCap bounds a usage count.
func TestOutputEstimateWithNothingGenerated(t *testing.T) {
	const noDone = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"
	for _, c := range []struct {
		name, path, req, response string
		stream, fails             bool
		want                      int32
	}{
		{"a stream that ended with nothing", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":50,"stream":true}`,
			noDone + "data: [DONE]\n\n", true, false, 0},
		{"an echo of the prompt alone", "/v1/completions",
			fmt.Sprintf(`{"model":"m","echo":true,"max_tokens":1,"prompt":%q}`, echoPrompt),
			fmt.Sprintf(`{"choices":[{"index":0,"text":%q,"finish_reason":"stop"}]}`, echoPrompt), false, false, 0},
		{"a failed stream of n choices", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":10,"n":3,"stream":true}`,
			noDone, true, true, 30},
		{"a failed echo of two prompts", "/v1/completions",
			`{"model":"m","echo":true,"max_tokens":10,"prompt":["a","b"],"stream":true}`,
			noDone, true, true, 20},
		{"an unreadable success of best_of candidates", "/v1/completions",
			`{"model":"m","max_tokens":10,"best_of":4,"prompt":"a"}`,
			`{"choices":`, false, false, 40},
	} {
		row := recordUsage(t, c.path, c.req, c.response, c.stream)
		if (row.Error != "") != c.fails || row.OutputTokens != c.want {
			t.Errorf("%s: error %q, output tokens %d, want %d", c.name, row.Error, row.OutputTokens, c.want)
		}
	}
}
