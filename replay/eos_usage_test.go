package replay

import (
	"strings"
	"testing"
)

// vLLM with continuous usage stats puts the cumulative completion tokens
// on every chunk; the EOS token comes in a last chunk with empty content,
// so the content chunks' counts end one below the final usage. They are
// still exact: the first chunk's three tokens (text held back until it
// decoded) stay at its arrival instead of being spread by text length.
func TestContinuousUsageWithContentlessEOSIsExact(t *testing.T) {
	events := []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":7,"total_tokens":7,"completion_tokens":0}}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":7,"total_tokens":10,"completion_tokens":3}}`,
		`{"choices":[{"index":0,"delta":{"content":"bbbbbbbbbb"}}],"usage":{"prompt_tokens":7,"total_tokens":11,"completion_tokens":4}}`,
		`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"total_tokens":12,"completion_tokens":5}}`,
		`{"choices":[],"usage":{"prompt_tokens":7,"total_tokens":12,"completion_tokens":5}}`,
		`[DONE]`,
	}
	r := replayPacedStream(t, events, 2, 8) // the second content chunk comes later
	if r.Error != "" || r.UsageOutput != 5 || len(r.TokenTimes) != 5 || r.Chunks != 2 {
		t.Fatalf("error %q, usage %d, %d token times, %d chunks: want 5 tokens over 2 chunks", r.Error, r.UsageOutput, len(r.TokenTimes), r.Chunks)
	}
	atFirst := tokensAtFirstChunk(r)
	if atFirst != 3 || r.TokenTimes[4] != r.LastToken {
		t.Errorf("token times %v (first chunk at %d, last at %d): want 3 at the first chunk, as its usage said, and the last at the last chunk",
			r.TokenTimes, r.FirstToken, r.LastToken)
	}
}

// A usage block without completion_tokens (absent or null) is a bad
// stream that says so: "completion_tokens = 0" would claim the server
// counted none.
func TestUsageWithoutCompletionTokensSaysSo(t *testing.T) {
	for _, usage := range []string{
		`{"prompt_tokens":5,"total_tokens":7}`,
		`{"prompt_tokens":5,"total_tokens":7,"completion_tokens":null}`,
	} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
			`data: {"choices":[],"usage":` + usage + `}` + "\n\ndata: [DONE]\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if r := out[0]; ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "no completion_tokens") {
			t.Errorf("usage %s: error %q, want %s saying usage has no completion_tokens", usage, r.Error, KindBadStream)
		}
	}
}

// An event with empty data is no chunk: the failure says the data was
// empty, rather than show nothing after "undecodable chunk 2:".
func TestEmptyDataEventIsNamed(t *testing.T) {
	srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\ndata:\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n\ndata: [DONE]\n\n")
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if r := out[0]; ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "chunk 2") || !strings.Contains(r.Error, "empty") {
		t.Errorf("error %q, want %s naming chunk 2 as empty", r.Error, KindBadStream)
	}
}

// A running count past int32 is no count, not one wrapped into range
// (4294967297 is not 1): the chunks are timed by text length, as the
// recording proxy times them, and the row is judged by its final usage.
func TestRunningUsagePastInt32TimesByText(t *testing.T) {
	events := []string{
		`{"choices":[{"index":0,"delta":{"content":"aaaaaaaaaa"}}],"usage":{"prompt_tokens":7,"completion_tokens":4294967297}}`,
		`{"choices":[{"index":0,"delta":{"content":"b"}}],"usage":{"prompt_tokens":7,"completion_tokens":5}}`,
		`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5}}`,
		`[DONE]`,
	}
	r := replayPacedStream(t, events, 1, 8) // the second content chunk comes later
	if r.Error != "" || r.UsageOutput != 5 || len(r.TokenTimes) != 5 || r.Chunks != 2 {
		t.Fatalf("error %q, usage %d, %d token times, %d chunks: want 5 tokens over 2 chunks", r.Error, r.UsageOutput, len(r.TokenTimes), r.Chunks)
	}
	// By text (10 bytes, then 1): four tokens at the first chunk, one at
	// the second. The wrapped count (1) would put one at the first.
	atFirst := tokensAtFirstChunk(r)
	if atFirst != 4 {
		t.Errorf("token times %v (first chunk at %d): want 4 at the first chunk, timed by text", r.TokenTimes, r.FirstToken)
	}
}
