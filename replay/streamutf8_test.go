package replay

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/servesim/servesim/traces"
)

// Text the server streams in invalid UTF-8 (a tokenizer's half rune, a
// Latin-1 error message) reaches the row's Error, FinishReason or
// OutputText through the slow decoder, which keeps such bytes as they
// are. A trace holds only valid UTF-8, so a row with them is refused by
// the writer, and that one request's text stopped the whole run with a
// write error instead of being recorded like any other.
func TestStreamedInvalidUTF8IsRecorded(t *testing.T) {
	content := `data: {"choices":[{"delta":{"content":"a` + "\xff" + `b"},"finish_reason":null}]}` + "\n\n"
	streams := map[string]string{
		"stream error": content + `data: {"error":{"message":"moteur d` + "\xe9" + `faillant","type":"internal_error"}}` + "\n\n",
		"vllm error":   content + `data: {"object":"error","message":"moteur d` + "\xe9" + `faillant","type":"BadRequestError","code":400}` + "\n\n",
		"finish reason": content + `data: {"choices":[{"delta":{"content":"c"},"finish_reason":"st` + "\xff" + `p"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":60,"completion_tokens":2,"total_tokens":62}}` + "\n\ndata: [DONE]\n\n",
		"kept text": content + `data: {"choices":[{"delta":{"content":"c"},"finish_reason":"length"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":60,"completion_tokens":2,"total_tokens":62}}` + "\n\ndata: [DONE]\n\n",
	}
	for name, body := range streams {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				if n.Add(1) == 1 { // the first request only: the second is a plain success
					w.Write([]byte(body))
					return
				}
				w.Write([]byte(`data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"length"}]}` + "\n\n" +
					`data: {"choices":[],"usage":{"prompt_tokens":60,"completion_tokens":2,"total_tokens":62}}` + "\n\ndata: [DONE]\n\n"))
			}))
			defer srv.Close()
			dir := t.TempDir()
			cfg := testConfig(nil)
			cfg.BaseURL = srv.URL + "/v1"
			cfg.KeepText = name == "kept text"
			cfg.Arrival, cfg.Concurrency = Closed, 1 // in order: the odd stream first
			cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(2, time.Millisecond, 40, 2))
			cfg.Out = filepath.Join(dir, "out.parquet")
			sums, err := Record(t.Context(), cfg, nil)
			if err != nil {
				t.Fatalf("Record: %v", err)
			}
			if s := sums[0]; s.Sent != 2 {
				t.Fatalf("sent %d, want 2", s.Sent)
			}
			_, got, err := traces.ReadAll(cfg.Out)
			if err != nil || len(got) != 2 {
				t.Fatalf("%d rows read back (%v), want 2", len(got), err)
			}
			r := got[0]
			for _, s := range []string{r.Error, r.FinishReason, r.OutputText} {
				if !utf8.ValidString(s) {
					t.Errorf("row holds invalid UTF-8: %q", s)
				}
			}
			switch name {
			case "stream error", "vllm error":
				if ErrorKind(r.Error) != KindStreamError || !strings.Contains(r.Error, "moteur d\uFFFDfaillant") {
					t.Errorf("error %q, want the stream error with its message", r.Error)
				}
			case "finish reason":
				if !r.Succeeded() || r.FinishReason != "st\uFFFDp" {
					t.Errorf("error %q, finish reason %q: want a success that finished with %q", r.Error, r.FinishReason, "st\uFFFDp")
				}
			case "kept text":
				if !r.Succeeded() || r.OutputText != "a\uFFFDbc" {
					t.Errorf("error %q, text %q: want a success with text %q", r.Error, r.OutputText, "a\uFFFDbc")
				}
			}
		})
	}
}
