package proxy

import "testing"

// A success that shows no output but finished at "length" ran to its cap:
// what it generated does not show (reasoning a server hides, special
// tokens it skips), so it is sized at the cap over its sequences, not 0.
func TestOutputEstimateAtLengthFinishWithNothingShown(t *testing.T) {
	for _, c := range []struct {
		name, path, req, response string
		stream                    bool
		want                      int32
	}{
		{"a chat of two choices, content null", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":8,"n":2}`,
			`{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"length"},` +
				`{"index":1,"message":{"role":"assistant","content":null},"finish_reason":"length"}]}`, false, 16},
		{"a stream whose only chunk is the finish", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":8,"stream":true}`,
			"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n", true, 8},
		{"a completion that stopped with nothing", "/v1/completions",
			`{"model":"m","max_tokens":8,"prompt":"a"}`,
			`{"choices":[{"index":0,"text":"","finish_reason":"stop"}]}`, false, 0},
	} {
		row := recordUsage(t, c.path, c.req, c.response, c.stream)
		if row.Error != "" || row.OutputTokens != c.want {
			t.Errorf("%s: error %q, output tokens %d, want %d", c.name, row.Error, row.OutputTokens, c.want)
		}
	}
}
