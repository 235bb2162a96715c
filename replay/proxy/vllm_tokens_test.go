package proxy

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// vllmRig is a rig whose upstream streams events as vLLM does, a pause
// before each content chunk after the first.
func vllmRig(t *testing.T, events []string) *rig {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range events {
			if i >= 2 {
				time.Sleep(5 * time.Millisecond)
			}
			w.Write([]byte("data: " + e + "\n\n"))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(up.Close)
	return newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
}

// vLLM ends a stream with a chunk of empty content that carries the EOS
// token, so usage counts one token more than the content chunks. The
// tokens are still timed, as record times them: the EOS is the last
// chunk's.
func TestVLLMStreamHasTokenTimes(t *testing.T) {
	r := vllmRig(t, []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":"c"},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":7,"total_tokens":11,"completion_tokens":4}}`,
		`[DONE]`,
	})
	r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
	_, rows := r.finish(t)
	row := rows[0]
	if row.Error != "" || row.UsageOutput != 4 || row.Chunks != 3 {
		t.Fatalf("error %q, usage %d, chunks %d: want 4 tokens over 3 chunks", row.Error, row.UsageOutput, row.Chunks)
	}
	if len(row.TokenTimes) != 4 || row.TokenTimes[0] != row.FirstToken || row.TokenTimes[3] != row.LastToken ||
		!slices.IsSorted(row.TokenTimes) {
		t.Errorf("token times %v (first token %d, last %d): want 4, from the first chunk to the last", row.TokenTimes, row.FirstToken, row.LastToken)
	}
}

// With continuous usage stats every chunk carries the cumulative count:
// the first chunk's three tokens (text held back until it decoded) are at
// its arrival, as the count says, not spread by text length.
func TestContinuousUsageTokenTimesAreExact(t *testing.T) {
	r := vllmRig(t, []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":7,"total_tokens":7,"completion_tokens":0}}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":7,"total_tokens":10,"completion_tokens":3}}`,
		`{"choices":[{"index":0,"delta":{"content":"bbbbbbbbbb"}}],"usage":{"prompt_tokens":7,"total_tokens":11,"completion_tokens":4}}`,
		`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"total_tokens":12,"completion_tokens":5}}`,
		`{"choices":[],"usage":{"prompt_tokens":7,"total_tokens":12,"completion_tokens":5}}`,
		`[DONE]`,
	})
	r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
	_, rows := r.finish(t)
	row := rows[0]
	if row.Error != "" || row.UsageOutput != 5 || row.Chunks != 2 {
		t.Fatalf("error %q, usage %d, chunks %d: want 5 tokens over 2 chunks", row.Error, row.UsageOutput, row.Chunks)
	}
	want := []int64{row.FirstToken, row.FirstToken, row.FirstToken, (row.FirstToken + row.LastToken) / 2, row.LastToken}
	if !slices.Equal(row.TokenTimes, want) {
		t.Errorf("token times %v, want %v: 3 at the first chunk, as its usage said, 2 over the gap to the last", row.TokenTimes, want)
	}
}

// A usage count above the bytes streamed was not all streamed (or is
// false): its tokens get no times, and the count does not size memory.
// The request sets no max_tokens, which would bound the count.
func TestUsageAboveStreamHasNoTokenTimes(t *testing.T) {
	r := vllmRig(t, []string{
		`{"choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2000000000}}`,
		`[DONE]`,
	})
	r.post(t, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`)
	_, rows := r.finish(t)
	if row := rows[0]; row.UsageOutput != 2000000000 || row.TokenTimes != nil {
		t.Errorf("usage %d, %d token times: want the count kept and no times", row.UsageOutput, len(row.TokenTimes))
	}
}

// A running count no request can have (negative) is no count: the chunks
// are timed by text length, as record times them, and the row, judged by
// its final usage as record judges it, stays a success.
func TestNegativeRunningUsageTimesByText(t *testing.T) {
	r := vllmRig(t, []string{
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":7,"completion_tokens":-3}}`,
		`{"choices":[{"index":0,"delta":{"content":"bbbbbbbbbb"}}],"usage":{"prompt_tokens":7,"completion_tokens":4}}`,
		`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5}}`,
		`[DONE]`,
	})
	r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
	_, rows := r.finish(t)
	row := rows[0]
	if row.Error != "" || row.UsageOutput != 5 || row.Chunks != 2 {
		t.Fatalf("error %q, usage %d, chunks %d: want a success of 5 tokens over 2 chunks", row.Error, row.UsageOutput, row.Chunks)
	}
	// By text (1 and 10 bytes): the first chunk gets its one token, the
	// rest go over the gap to the second.
	gap := row.LastToken - row.FirstToken
	want := []int64{row.FirstToken}
	for j := int64(1); j <= 4; j++ {
		want = append(want, row.FirstToken+gap*j/4)
	}
	if !slices.Equal(row.TokenTimes, want) {
		t.Errorf("token times %v, want %v: timed by text, the negative count ignored", row.TokenTimes, want)
	}
}
