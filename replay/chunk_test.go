package replay

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

var chunkSeeds = []struct {
	data string
	fast bool // the fast path must take it
}{
	{`{"id":"c-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`, true},
	{`{"id":"c-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`, true},
	{`{"id":"c-1","object":"text_completion","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":"length","stop_reason":null}]}`, true},
	{`{"id":"c-1","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":50,"total_tokens":170}}`, true},
	{`{"id":"c-1","choices":[{"delta":{"content":"x"},"finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":7,"total_tokens":8,"prompt_tokens_details":null}}`, true},
	{`{"choices":[{"delta":{"reasoning_content":"hm","content":null}},{"delta":{"reasoning":"é\n\"\u00e9\u4e2d\/"}}]}`, true},
	{` { "choices" : [ { "delta" : { "tool_calls" : [ { "a" : [ 1.5e3 , -0 , true , false , null , { } , [ ] ] } ] } } ] } `, true},
	{`{"choices":null,"usage":null,"error":null,"object":null}`, true},
	{`{"choices":[{"delta":null,"text":"😀","finish_reason":"stop"}]}`, true},
	{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1}}}`, false},
	{`{"error":{"message":"boom","type":"internal_error","code":500}}`, false},
	{`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`, false},
	{`{"object":"error","message":"boom"}`, false},
	{`{"Choices":[{"delta":{"content":"a"}}]}`, false},
	{`{"choices":[{"delta":{"content":"\ud83d\ude00"}}]}`, false},
	{`{"choices":[{"delta":{"content":"a"}}],"choices":[]}`, false},
	{`{"choices":[{"delta":{"content":"a","content":"bb"}}]}`, false},
	{`{"choices":[{"delta":{"content":"a"}}]} x`, false},
	{`{"choices":[{"delta":{"content":5}}]}`, false},
	{`{"choices":[null]}`, false},
	{`{"choices":[{"delta":{"content":"a\x01"}}]}`, false},
	{"{\"choices\":[{\"text\":\"\xff\"}]}", false},
	{`{"usage":{"prompt_tokens":1.0}}`, false},
	{`{"usage":{"prompt_tokens":-1}}`, false},
	{`{"id":01}`, false},
	{`null`, false},
	{`[DONE`, false},
	{``, false},
}

// TestScanChunk checks that the fast path takes the usual chunks and gives
// up on the rest, and that it agrees with go-json whenever it takes one.
// decodeChunk is decodeJSON on a chunk not yet known to be valid JSON.
func decodeChunk(data []byte, cs *chunkScan, n int, keep *strings.Builder) string {
	return decodeJSON(data, cs, n, keep, false)
}

func TestScanChunk(t *testing.T) {
	for _, c := range chunkSeeds {
		var cs chunkScan
		if got := scanChunk([]byte(c.data), &cs); got != c.fast {
			t.Errorf("scanChunk(%s) = %v, want %v", c.data, got, c.fast)
		}
		checkScan(t, c.data)
	}
	b := []byte(chunkSeeds[1].data)
	var cs chunkScan
	if n := testing.AllocsPerRun(100, func() { scanChunk(b, &cs) }); n != 0 {
		t.Errorf("scanChunk: %v allocations per chunk, want 0", n)
	}
}

func FuzzScanChunk(f *testing.F) {
	for _, c := range chunkSeeds {
		f.Add(c.data)
	}
	f.Fuzz(checkScan)
}

// checkScan fails if scanChunk takes data and go-json disagrees with it.
func checkScan(t *testing.T, data string) {
	var got, want chunkScan
	if !scanChunk([]byte(data), &got) {
		return
	}
	if !json.Valid([]byte(data)) { // readChunk then skips json.Valid
		t.Fatalf("scanChunk took %q, which is not valid JSON", data)
	}
	if p := decodeChunk([]byte(data), &want, 0, nil); p != "" {
		t.Fatalf("scanChunk took %q; go-json: %s", data, p)
	}
	if got.choices != want.choices || got.index != want.index || got.text != want.text || string(got.finish) != string(want.finish) ||
		got.hasUsage != want.hasUsage || got.usage != want.usage || got.filtered != want.filtered {
		t.Fatalf("%q: scanChunk %+v, go-json %+v", data, got, want)
	}
}

// TestChunkPathsAgree streams the same responses through the fast path
// and through go-json (KeepText forces it) and compares the rows.
func TestChunkPathsAgree(t *testing.T) {
	for _, ep := range []Endpoint{Chat, Completions} {
		for i, cont := range []bool{false, true, false, true} {
			cached, wantCached := i/2*16, int32(traces.Missing) // usage with prompt_tokens_details goes to go-json
			if cached > 0 {
				wantCached = int32(cached)
			}
			srv := replaytest.New(replaytest.Options{TokensPerChunk: 3, ContinuousUsage: cont, Cached: func(int) int { return cached }})
			var rows [2]traces.Request
			for j, keep := range []bool{false, true} {
				cfg := testConfig(srv)
				cfg.Endpoint, cfg.KeepText = ep, keep
				c := mustClient(t, &cfg)
				r := &rows[j]
				r.Reset()
				r.OutputTokens = 10
				c.do(t.Context(), time.Now(), 0, r, c.body(bytes.Repeat([]byte("a"), 50), 10))
				c.close()
			}
			f, s := &rows[0], &rows[1]
			if f.Error != "" || s.Error != "" || f.UsagePrompt != s.UsagePrompt || f.UsageOutput != s.UsageOutput ||
				f.UsageCached != s.UsageCached || f.Chunks != s.Chunks || f.FinishReason != s.FinishReason ||
				len(f.TokenTimes) != len(s.TokenTimes) || f.UsageOutput != 10 || f.Chunks != 4 || f.UsageCached != wantCached {
				t.Errorf("%s, continuous usage %v, cached %d: fast path %+v, go-json %+v", ep, cont, cached, f, s)
			}
			srv.Close()
		}
	}
}

// TestDecodeChunkRefusesMalformedJSON: go-json skips an unknown key's
// value without checking it, so a chunk with a malformed number there
// must still be an undecodable chunk, not a content chunk.
func TestDecodeChunkRefusesMalformedJSON(t *testing.T) {
	for _, data := range []string{
		`{"id":01,"choices":[{"delta":{"content":"a"}}]}`,
		`{"id":01}`,
	} {
		var cs chunkScan
		got := decodeChunk([]byte(data), &cs, 3, nil)
		if want := KindBadStream + ": undecodable chunk 3: " + data; got != want {
			t.Errorf("decodeChunk(%s) = %q, want %q", data, got, want)
		}
	}
}

// BenchmarkReadChunk reads the usual content chunk, with its text kept
// (KeepText) and without.
func BenchmarkReadChunk(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"servesim-tiny","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}`)
	for _, keep := range []bool{false, true} {
		b.Run("keep="+strconv.FormatBool(keep), func(b *testing.B) {
			var cs chunkScan
			var text strings.Builder
			var kept *strings.Builder
			if keep {
				kept = &text
			}
			b.ReportAllocs()
			for b.Loop() {
				text.Reset()
				if p := readChunk(data, &cs, 1, kept); p != "" || cs.text != 4 {
					b.Fatalf("problem %q, %d bytes of text", p, cs.text)
				}
			}
		})
	}
}
