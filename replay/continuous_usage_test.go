package replay

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// continuousUsageServer streams one reply whose first content chunk
// carries three tokens in one byte and whose second carries one in ten,
// as a speculative step can; like vLLM and SGLang it puts the running
// usage on every chunk only when the request asks with
// stream_options.continuous_usage_stats. asked reports what it got.
func continuousUsageServer(t *testing.T, asked *bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			StreamOptions struct {
				IncludeUsage bool `json:"include_usage"`
				Continuous   bool `json:"continuous_usage_stats"`
			} `json:"stream_options"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.StreamOptions.IncludeUsage {
			t.Errorf("request: %v, stream_options %+v: want include_usage", err, req.StreamOptions)
		}
		*asked = req.StreamOptions.Continuous
		usage := func(n string) string {
			if !req.StreamOptions.Continuous {
				return ""
			}
			return `,"usage":{"prompt_tokens":7,"completion_tokens":` + n + `}`
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range []string{
			`{"choices":[{"index":0,"delta":{"content":"a"}}]` + usage("3") + `}`,
			`{"choices":[{"index":0,"delta":{"content":"bbbbbbbbbb"},"finish_reason":"length"}]` + usage("4") + `}`,
			`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":4}}`,
			`[DONE]`,
		} {
			if i == 1 {
				time.Sleep(30 * time.Millisecond)
			}
			w.Write([]byte("data: " + e + "\n\n"))
			w.(http.Flusher).Flush()
		}
	}))
}

// With ContinuousUsage the request asks for usage on every chunk, and a
// chunk's tokens are the server's count, not a share by text length;
// without it the request asks only for the final usage (OpenAI may refuse
// the field) and the tokens are spread by text.
func TestContinuousUsageAttributesChunkTokensExactly(t *testing.T) {
	for _, cont := range []bool{false, true} {
		var asked bool
		srv := continuousUsageServer(t, &asked)
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		cfg.ContinuousUsage = cont
		_, out := runRows(t, cfg, rows(1, 0, 40, 4))
		srv.Close()
		r := out[0]
		if asked != cont {
			t.Errorf("ContinuousUsage %v: request sent continuous_usage_stats %v", cont, asked)
		}
		if r.Error != "" || r.UsageOutput != 4 || len(r.TokenTimes) != 4 {
			t.Fatalf("ContinuousUsage %v: error %q, usage %d, token times %v: want 4 tokens", cont, r.Error, r.UsageOutput, r.TokenTimes)
		}
		atFirst := tokensAtFirstChunk(r)
		if want := map[bool]int{false: 1, true: 3}[cont]; atFirst != want {
			t.Errorf("ContinuousUsage %v: %d tokens at the first chunk (token times %v), want %d", cont, atFirst, r.TokenTimes, want)
		}
	}
}

// A recording says whether it asked for usage on every chunk, as it says
// every setting that shaped its numbers; the request carries the field
// only when asked.
func TestRecordMetaSaysContinuousUsage(t *testing.T) {
	for _, cont := range []bool{false, true} {
		srv := replaytest.New(replaytest.Options{Record: true, TokensPerChunk: 3, UsageIfAsked: true})
		dir := t.TempDir()
		cfg := testConfig(srv)
		cfg.ContinuousUsage = cont
		cfg.Trace = filepath.Join(dir, "in.jsonl")
		if err := traces.WriteAll(cfg.Trace, traces.Meta{Source: "simulated"}, rows(2, 0, 60, 7)); err != nil {
			t.Fatal(err)
		}
		cfg.Out = filepath.Join(dir, "out.parquet")
		if _, err := Record(t.Context(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		meta, out, err := traces.ReadAll(cfg.Out)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := meta.Extra["replay.continuous_usage"], strconv.FormatBool(cont); got != want {
			t.Errorf("ContinuousUsage %v: replay.continuous_usage = %q, want %q", cont, got, want)
		}
		for _, q := range srv.Requests() {
			if q.Continuous != cont || !q.IncludeUsage {
				t.Errorf("ContinuousUsage %v: request sent continuous_usage_stats %v, include_usage %v", cont, q.Continuous, q.IncludeUsage)
			}
		}
		for _, r := range out {
			if r.Error != "" || len(r.TokenTimes) != 7 || r.Chunks != 3 {
				t.Errorf("ContinuousUsage %v: error %q, %d token times over %d chunks: want 7 over 3", cont, r.Error, len(r.TokenTimes), r.Chunks)
			}
		}
	}
}
