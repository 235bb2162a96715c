package replay

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// sseServer answers every request with body as a 200 event stream.
func sseServer(body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.Write([]byte(body))
	}))
}

// A usage block whose counts no request can have (negative, past int32,
// zero output tokens for a stream that carried content) is a bad stream:
// the row is a failure with empty metrics, not a success with wrapped or
// negative token counts (nor a crash allocating token times).
func TestImpossibleUsageIsABadStream(t *testing.T) {
	for _, usage := range []string{
		`"prompt_tokens":5,"completion_tokens":-3`,
		`"prompt_tokens":-5,"completion_tokens":2`,
		`"prompt_tokens":5,"completion_tokens":0`,
		`"prompt_tokens":4294967301,"completion_tokens":2`,
		`"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":-1}`,
		`"prompt_tokens":5,"completion_tokens":4294967298`,
	} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
			`data: {"choices":[],"usage":{` + usage + `}}` + "\n\ndata: [DONE]\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		s, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		r := out[0]
		if ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "usage") {
			t.Errorf("usage {%s}: error %q (usage prompt %d, output %d), want %s naming the usage", usage, r.Error, r.UsagePrompt, r.UsageOutput, KindBadStream)
			continue
		}
		if r.UsageOutput != traces.Missing || r.UsagePrompt != traces.Missing || r.TokenTimes != nil || s.Failed != 1 {
			t.Errorf("usage {%s}: failure kept metrics: %+v", usage, r)
		}
	}
}

// Cached tokens are part of the prompt: a usage block reporting more
// cached tokens than prompt tokens is a bad stream, not a row whose
// prefix-hit rate is above 1. Without prompt_tokens there is nothing to
// compare, and the cached count stands.
func TestCachedAbovePromptIsABadStream(t *testing.T) {
	for _, c := range []struct {
		usage   string
		wantBad bool
	}{
		{`"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":6}`, true},
		{`"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":5}`, false},
		{`"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":6}`, false},
	} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
			`data: {"choices":[],"usage":{` + c.usage + `}}` + "\n\ndata: [DONE]\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		s, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		r := out[0]
		if !c.wantBad {
			if r.Error != "" || r.UsageCached <= 0 {
				t.Errorf("usage {%s}: error %q, cached %d: want a success keeping the cached count", c.usage, r.Error, r.UsageCached)
			}
			continue
		}
		if ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "cached_tokens = 6") || !strings.Contains(r.Error, "prompt_tokens = 5") {
			t.Errorf("usage {%s}: error %q (cached %d), want %s naming both counts", c.usage, r.Error, r.UsageCached, KindBadStream)
			continue
		}
		if r.UsageCached != traces.Missing || r.UsagePrompt != traces.Missing || s.Failed != 1 {
			t.Errorf("usage {%s}: failure kept metrics: %+v", c.usage, r)
		}
	}
}

// An SSE line over the cap fails the request even when [DONE] follows it
// within the same read: the chunk it held is lost, so the measurements
// would miss its content.
func TestLongLineBeforeDoneIsABadStream(t *testing.T) {
	long := `data: {"choices":[{"delta":{"content":"` + strings.Repeat("x", 8<<20) + `"}}]}`
	srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" + long + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n\ndata: [DONE]\n\n")
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if r := out[0]; ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "SSE line over") {
		t.Fatalf("error %q, chunks %d: want %s for the line over the cap", r.Error, r.Chunks, KindBadStream)
	}
}

// UsageCached is Missing when the usage block does not report cached
// tokens, even when it has prompt_tokens_details for other counts: 0
// would claim a measured cache miss.
func TestCachedTokensMissingWhenAbsent(t *testing.T) {
	for details, want := range map[string]int32{
		``:                              traces.Missing,
		`,"prompt_tokens_details":null`: traces.Missing,
		`,"prompt_tokens_details":{"audio_tokens":0}`:     traces.Missing,
		`,"prompt_tokens_details":{"cached_tokens":0}`:    0,
		`,"prompt_tokens_details":{"cached_tokens":3}`:    3,
		`,"prompt_tokens_details":{"cached_tokens":null}`: traces.Missing,
	} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2` + details + `}}` + "\n\ndata: [DONE]\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if r := out[0]; r.Error != "" || r.UsageCached != want {
			t.Errorf("usage details %q: cached %d (error %q), want %d", details, r.UsageCached, r.Error, want)
		}
	}
}

// A usage count above the max_tokens the request sent is a server fault:
// the row is a bad_stream naming both, not a success with the claimed
// count (nor per-token state sized by it: 2,000,000,000 tokens would be
// 16 GB of token times).
func TestUsageAboveMaxTokensIsABadStream(t *testing.T) {
	for _, completion := range []string{"6", "1000000", "2000000000"} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":` + completion + `}}` + "\n\ndata: [DONE]\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		s, out := runRows(t, cfg, rows(1, 0, 40, 5)) // max_tokens 5
		srv.Close()
		r := out[0]
		if ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "completion_tokens = "+completion) || !strings.Contains(r.Error, "max_tokens 5") {
			t.Errorf("completion_tokens %s: error %q (usage output %d), want %s naming the count and max_tokens 5", completion, r.Error, r.UsageOutput, KindBadStream)
			continue
		}
		if r.UsageOutput != traces.Missing || r.TokenTimes != nil || s.Failed != 1 {
			t.Errorf("completion_tokens %s: failure kept metrics: %+v", completion, r)
		}
	}
	// Up to max_tokens is a success, a row of output_tokens 0 sent as 1 too.
	for _, c := range []struct {
		output     int32
		completion string
		want       int32
	}{{5, "5", 5}, {0, "1", 1}} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":` + c.completion + `}}` + "\n\ndata: [DONE]\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, c.output))
		srv.Close()
		if r := out[0]; r.Error != "" || r.UsageOutput != c.want || len(r.TokenTimes) != int(c.want) {
			t.Errorf("output_tokens %d, completion_tokens %s: error %q, usage output %d, %d token times; want a success of %d", c.output, c.completion, r.Error, r.UsageOutput, len(r.TokenTimes), c.want)
		}
	}
}

// Token times are sized by what the stream carried, not by the server's
// count: a count within max_tokens but above the stream's bytes (tokens
// not streamed, or a false count) is recorded as reported, with no token
// times (their times were never seen) and no allocation of its size.
func TestTokenTimesBoundedByTheStream(t *testing.T) {
	const claimed = 20_000_000 // 160 MB of token times
	srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":20000000}}` + "\n\ndata: [DONE]\n\n")
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, out := runRows(t, cfg, rows(1, 0, 40, claimed))
	runtime.ReadMemStats(&after)
	r := out[0]
	if r.Error != "" || r.UsageOutput != claimed || r.Chunks != 1 {
		t.Fatalf("error %q, usage output %d, chunks %d: want a success of %d tokens in 1 chunk", r.Error, r.UsageOutput, r.Chunks, claimed)
	}
	if r.TokenTimes != nil {
		t.Errorf("%d token times for a stream of one 2-byte chunk, want none (not measured)", len(r.TokenTimes))
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 32<<20 {
		t.Errorf("the request allocated %d MB", a>>20)
	}
}
