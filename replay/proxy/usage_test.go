package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A usage block no request can have (cached tokens above prompt tokens, a
// negative count, one past int32) is a failure naming it, as record
// writes one: not a success whose prefix-hit rate is above 1 or whose
// count was clamped to a number the server never sent. The request's size
// is then the estimate, not the untrusted count, and the client still gets
// the stream unchanged.
func TestImpossibleUsageIsAFailure(t *testing.T) {
	for usage, want := range map[string]string{
		`"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":6}`:  "cached_tokens = 6, above prompt_tokens = 5",
		`"prompt_tokens":-5,"completion_tokens":2`:                                             "prompt_tokens = -5",
		`"prompt_tokens":5,"completion_tokens":-2`:                                             "completion_tokens = -2",
		`"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":-1}`: "cached_tokens = -1",
		`"prompt_tokens":4294967301,"completion_tokens":2`:                                     "prompt_tokens = 4294967301",
	} {
		stream := "data: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\n\n" +
			"data: {\"choices\":[],\"usage\":{" + usage + "}}\n\n" +
			"data: [DONE]\n\n"
		row := recordPassedStream(t, "usage {"+usage+"}", stream)
		if !strings.Contains(row.Error, "usage reports "+want) || !strings.Contains(row.Error, "after 1 content chunks") {
			t.Errorf("usage {%s}: error %q, want one naming %q and the chunks before it", usage, row.Error, want)
		}
		if row.UsagePrompt != traces.Missing || row.UsageOutput != traces.Missing || row.UsageCached != traces.Missing ||
			row.TokenTimes != nil || row.Succeeded() {
			t.Errorf("usage {%s}: the failure kept metrics: %+v", usage, row)
		}
		if row.PromptTokens <= 0 || row.PromptTokens > 100 || row.OutputTokens != 1 {
			t.Errorf("usage {%s}: size prompt %d output %d, want the estimates (output 1 for one short chunk)", usage, row.PromptTokens, row.OutputTokens)
		}
	}
}

// Cached tokens up to the prompt are a success keeping the count.
func TestCachedTokensUpToThePromptAreKept(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":5}}}\n\n" +
		"data: [DONE]\n\n"
	row := recordPassedStream(t, "cached tokens", stream)
	if row.Error != "" || row.UsageCached != 5 || row.UsagePrompt != 5 {
		t.Fatalf("row %+v, want a success with 5 cached of 5 prompt tokens", row)
	}
}

// fixedUpstream answers every request with body, as an event stream when
// stream is set and as JSON otherwise.
func fixedUpstream(body string, stream bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		io.WriteString(w, body)
	}))
}

// recordPassedStream sends a streamed chat request through the proxy to an
// upstream answering with stream, checks the client got the stream
// unchanged, and returns the one row; what names the case in failures.
func recordPassedStream(t *testing.T, what, stream string) *traces.Request {
	t.Helper()
	up := fixedUpstream(stream, true)
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	status, body := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
	_, rows := r.finish(t)
	if status != http.StatusOK || string(body) != stream {
		t.Errorf("%s: the client got %d %q, want the stream unchanged", what, status, body)
	}
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want 1", what, len(rows))
	}
	return rows[0]
}

// recordUsage sends reqBody to path through the proxy, to an upstream
// answering with body (a stream, or else a JSON response), and returns the
// row.
func recordUsage(t *testing.T, path, reqBody, body string, stream bool) *traces.Request {
	t.Helper()
	up := fixedUpstream(body, stream)
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	r.post(t, path, reqBody)
	_, rows := r.finish(t)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	return rows[0]
}

// Output with completion_tokens = 0 is a count that does not match what
// was generated: a failure, as record writes one, not a success of 0
// output tokens with no token times.
func TestZeroCompletionTokensWithOutputIsAFailure(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":0}}\n\n" +
		"data: [DONE]\n\n"
	row := recordUsage(t, "/v1/chat/completions", chatBody("m", true, true, "hi"), stream, true)
	if row.Error != "usage reports completion_tokens = 0 after 1 content chunks" || row.UsageOutput != traces.Missing || row.OutputTokens != 1 {
		t.Errorf("stream: error %q, usage output %d, output %d: want the failure, sized by the estimate (1)", row.Error, row.UsageOutput, row.OutputTokens)
	}
	whole := `{"choices":[{"message":{"content":"ab"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":0}}`
	row = recordUsage(t, "/v1/chat/completions", chatBody("m", false, false, "hi"), whole, false)
	if row.Error != "usage reports completion_tokens = 0" || row.UsageOutput != traces.Missing {
		t.Errorf("response: error %q, usage output %d: want the failure", row.Error, row.UsageOutput)
	}
	// No output at all: 0 tokens is what was generated.
	empty := `{"choices":[{"message":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":0}}`
	if row = recordUsage(t, "/v1/chat/completions", chatBody("m", false, false, "hi"), empty, false); row.Error != "" || row.UsageOutput != 0 {
		t.Errorf("empty response: error %q, usage output %d: want a success of 0 tokens", row.Error, row.UsageOutput)
	}
}

// A server never generates past the request's cap (max_completion_tokens,
// else max_tokens, per choice): a count above it is false, a failure as
// record writes one, not an inflated output.
func TestCompletionTokensAboveTheCapAreAFailure(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"abcdefghijklmnop\"}}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}\n\n" +
		"data: [DONE]\n\n"
	const msgs = `"messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}`
	for req, want := range map[string]string{
		`{"model":"m","max_tokens":5,` + msgs + `}`:                            "usage reports completion_tokens = 9, above the cap of 5 requested after 1 content chunks",
		`{"model":"m","max_tokens":50,"max_completion_tokens":8,` + msgs + `}`: "usage reports completion_tokens = 9, above the cap of 8 requested after 1 content chunks",
		`{"model":"m","max_tokens":4,"n":2,` + msgs + `}`:                      "usage reports completion_tokens = 9, above the cap of 8 requested after 1 content chunks",
		`{"model":"m","max_tokens":5,"n":2,` + msgs + `}`:                      "",
		`{"model":"m",` + msgs + `}`:                                           "",
		`{"model":"m","max_tokens":9,` + msgs + `}`:                            "",
	} {
		row := recordUsage(t, "/v1/chat/completions", req, stream, true)
		if row.Error != want {
			t.Errorf("request %s: error %q, want %q", req, row.Error, want)
		}
		if want != "" && (row.UsageOutput != traces.Missing || row.OutputTokens >= 9) {
			t.Errorf("request %s: usage output %d, output %d: want the estimate, not the false count", req, row.UsageOutput, row.OutputTokens)
		}
		if want == "" && row.UsageOutput != 9 {
			t.Errorf("request %s: usage output %d, want 9", req, row.UsageOutput)
		}
	}
}

// best_of generates that many candidates per returned choice, and a
// server may count them all (OpenAI bills them): the cap is per candidate.
func TestCompletionTokensCapCountsBestOf(t *testing.T) {
	stream := "data: {\"choices\":[{\"text\":\"abcdefghijklmnop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}\n\n" +
		"data: [DONE]\n\n"
	req := `{"model":"m","prompt":"hi","max_tokens":4,"n":1,"best_of":3,"stream":true,"stream_options":{"include_usage":true}}`
	if row := recordUsage(t, "/v1/completions", req, stream, true); row.Error != "" || row.UsageOutput != 9 {
		t.Errorf("error %q, usage output %d: want a success of 9 tokens (3 candidates of up to 4)", row.Error, row.UsageOutput)
	}
}

// A completions request may batch prompts (a list of strings or of
// token-id lists), each with its own choices: the cap is per prompt, and a
// flat list of token ids is one prompt.
func TestCompletionTokensCapCountsEachPrompt(t *testing.T) {
	stream := "data: {\"choices\":[{\"index\":0,\"text\":\"abcdefgh\"},{\"index\":1,\"text\":\"ijklmnop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}\n\n" +
		"data: [DONE]\n\n"
	const opts = `"max_tokens":4,"stream":true,"stream_options":{"include_usage":true}`
	for prompt, want := range map[string]string{
		`["hi","there","you"]`: "",
		`[[1,2],[3],[4]]`:      "",
		`["hi","there"]`:       "usage reports completion_tokens = 9, above the cap of 8 requested after 1 content chunks",
		`[1,2,3]`:              "usage reports completion_tokens = 9, above the cap of 4 requested after 1 content chunks",
		`"hi"`:                 "usage reports completion_tokens = 9, above the cap of 4 requested after 1 content chunks",
	} {
		req := `{"model":"m","prompt":` + prompt + `,` + opts + `}`
		if row := recordUsage(t, "/v1/completions", req, stream, true); row.Error != want {
			t.Errorf("prompt %s: error %q, want %q", prompt, row.Error, want)
		}
	}
}

// /v1/completions has no max_completion_tokens (OpenAI's completions API
// defines max_tokens alone), so a client sending both must not be held to
// max_completion_tokens there: the cap is the looser of the two, as a
// server may honour either.
func TestCompletionsCapIsNotMaxCompletionTokens(t *testing.T) {
	stream := "data: {\"choices\":[{\"text\":\"abcdefghijklmnop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}\n\n" +
		"data: [DONE]\n\n"
	const opts = `"model":"m","prompt":"hi","stream":true,"stream_options":{"include_usage":true}`
	for req, want := range map[string]string{
		`{` + opts + `,"max_tokens":50,"max_completion_tokens":8}`: "",
		`{` + opts + `,"max_tokens":8,"max_completion_tokens":50}`: "",
		`{` + opts + `,"max_tokens":8}`:                            "usage reports completion_tokens = 9, above the cap of 8 requested after 1 content chunks",
		`{` + opts + `,"max_tokens":8,"max_completion_tokens":5}`:  "usage reports completion_tokens = 9, above the cap of 8 requested after 1 content chunks",
	} {
		if row := recordUsage(t, "/v1/completions", req, stream, true); row.Error != want {
			t.Errorf("request %s: error %q, want %q", req, row.Error, want)
		}
	}
}

// A cap of 0 is no cap: vLLM reads max_completion_tokens 0 as unset (and
// falls back to max_tokens), and a server that answered a request capped
// at 0 with output did not honour it as one. null is unset too.
func TestZeroCapIsNoCap(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"abcdefghijklmnop\"}}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}\n\n" +
		"data: [DONE]\n\n"
	const msgs = `"messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}`
	for req, want := range map[string]string{
		`{"model":"m","max_completion_tokens":0,` + msgs + `}`:                   "",
		`{"model":"m","max_completion_tokens":0,"max_tokens":20,` + msgs + `}`:   "",
		`{"model":"m","max_completion_tokens":0,"max_tokens":8,` + msgs + `}`:    "usage reports completion_tokens = 9, above the cap of 8 requested after 1 content chunks",
		`{"model":"m","max_tokens":0,` + msgs + `}`:                              "",
		`{"model":"m","max_completion_tokens":null,"max_tokens":8,` + msgs + `}`: "usage reports completion_tokens = 9, above the cap of 8 requested after 1 content chunks",
		`{"model":"m","max_tokens":null,` + msgs + `}`:                           "",
	} {
		if row := recordUsage(t, "/v1/chat/completions", req, stream, true); row.Error != want {
			t.Errorf("request %s: error %q, want %q", req, row.Error, want)
		}
	}
	completion := strings.ReplaceAll(stream, `{"delta":{"content":"abcdefghijklmnop"}}`, `{"text":"abcdefghijklmnop"}`)
	req := `{"model":"m","prompt":"hi","max_tokens":0,"stream":true,"stream_options":{"include_usage":true}}`
	if row := recordUsage(t, "/v1/completions", req, completion, true); row.Error != "" {
		t.Errorf("completions, max_tokens 0: error %q, want none", row.Error)
	}
}

// With echo the response's text begins with the prompt, which no server
// generated: text beside completion_tokens 0 (max_tokens 0 asks for the
// prompt alone) is no false count, and a server may count the echoed
// prompt in completion_tokens, so the cap does not judge it either.
func TestEchoedPromptIsNotJudgedAsOutput(t *testing.T) {
	stream := "data: {\"choices\":[{\"text\":\"hello there\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":%s}}\n\n" +
		"data: [DONE]\n\n"
	const opts = `"model":"m","prompt":"hello there","stream":true,"stream_options":{"include_usage":true}`
	for _, c := range []struct{ req, completion, want string }{
		{`{` + opts + `,"echo":true,"max_tokens":0}`, "0", ""},
		{`{` + opts + `,"echo":true,"max_tokens":1}`, "3", ""},
		{`{` + opts + `,"max_tokens":1}`, "3", "usage reports completion_tokens = 3, above the cap of 1 requested after 1 content chunks"},
		{`{` + opts + `}`, "0", "usage reports completion_tokens = 0 after 1 content chunks"},
		{`{` + opts + `,"echo":true}`, "-1", "usage reports completion_tokens = -1 after 0 content chunks"}, // the one chunk held only the echo
	} {
		body := strings.Replace(stream, "%s", c.completion, 1)
		if row := recordUsage(t, "/v1/completions", c.req, body, true); row.Error != c.want {
			t.Errorf("request %s, completion_tokens %s: error %q, want %q", c.req, c.completion, row.Error, c.want)
		}
	}
}

// A usage block without completion_tokens (absent or null) counts no
// output: the row is the success the client saw, its prompt from the
// count and its output estimated from the text, as without usage, and
// untimed. Record fails such a response instead: it asked for the count
// to measure the server by.
func TestUsageWithoutCompletionTokensIsEstimated(t *testing.T) {
	for _, usage := range []string{`{"prompt_tokens":5}`, `{"prompt_tokens":5,"completion_tokens":null}`} {
		stream := "data: {\"choices\":[{\"delta\":{\"content\":\"abcdefgh\"}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"ij\"}}]}\n\n" +
			"data: {\"choices\":[],\"usage\":" + usage + "}\n\n" +
			"data: [DONE]\n\n"
		row := recordUsage(t, "/v1/chat/completions", chatBody("m", true, true, "hi"), stream, true)
		if row.Error != "" || row.UsagePrompt != 5 || row.PromptTokens != 5 || row.UsageOutput != traces.Missing || row.OutputTokens != 3 || row.TokenTimes != nil || row.Chunks != 2 {
			t.Errorf("%s: error %q, usage %d/%d, tokens %d/%d, %d token times, %d chunks: want a success of 5 prompt tokens counted, 3 output estimated over 2 chunks, untimed",
				usage, row.Error, row.UsagePrompt, row.UsageOutput, row.PromptTokens, row.OutputTokens, len(row.TokenTimes), row.Chunks)
		}
	}
}
