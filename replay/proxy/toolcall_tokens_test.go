package proxy

import (
	"slices"
	"testing"
)

// A tool call's tokens are its name and arguments, as the model generated
// them: the first chunk's id, type and JSON framing are not text, so the
// usage tokens go to the chunks in proportion to the name and argument
// fragments they carried.
func TestToolCallChunksWeighByArguments(t *testing.T) {
	r := vllmRig(t, []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"chatcmpl-tool-0123456789abcdef0123456789abcdef","type":"function","function":{"name":"f","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Pa"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ris, Fr\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":7,"total_tokens":28,"completion_tokens":21}}`,
		`[DONE]`,
	})
	r.post(t, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":32,"stream":true,"stream_options":{"include_usage":true}}`)
	_, rows := r.finish(t)
	row := rows[0]
	if row.Error != "" || row.UsageOutput != 21 || row.Chunks != 3 || len(row.TokenTimes) != 21 {
		t.Fatalf("error %q, usage %d, chunks %d, %d token times: want 21 tokens over 3 chunks", row.Error, row.UsageOutput, row.Chunks, len(row.TokenTimes))
	}
	// Weights 1 ("f"), 12 and 9 bytes of arguments: one token at the first chunk.
	if n := len(row.TokenTimes) - len(slices.DeleteFunc(slices.Clone(row.TokenTimes), func(at int64) bool { return at == row.FirstToken })); n != 1 || !slices.IsSorted(row.TokenTimes) {
		t.Errorf("%d tokens at the first chunk (its name \"f\" alone), want 1: %v", n, row.TokenTimes)
	}
}

// A custom tool call (OpenAI's free-form tools) carries its generated text
// in custom.input, not function.arguments: it weighs its name and input,
// not nothing.
func TestCustomToolCallWeighsItsInput(t *testing.T) {
	m := apiMessage{ToolCalls: []byte(`[{"index":0,"id":"call_0123456789","type":"custom","custom":{"name":"sql","input":"SELECT 1;"}}]`)}
	if n, carried := m.outputBytes(0); n != len("sql")+len("SELECT 1;") || !carried {
		t.Errorf("%d bytes (carried %v): want the name and input, %d", n, carried, len("sql")+len("SELECT 1;"))
	}
}
