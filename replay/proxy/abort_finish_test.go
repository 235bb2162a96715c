package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// vLLM ends a request it aborted (finish_reason "abort") or failed
// ("error") with usage and [DONE], as a finished stream ends. Its tokens
// stopped early: the row is a failure with empty metrics, as record
// writes one, and the client still gets the stream unchanged.
func TestEngineAbortIsAFailure(t *testing.T) {
	for _, reason := range []string{"abort", "error"} {
		stream := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"" + reason + "\"}]}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":60,\"completion_tokens\":2}}\n\n" +
			"data: [DONE]\n\n"
		row := recordPassedStream(t, "finish_reason "+strconv.Quote(reason), stream)
		if !strings.Contains(row.Error, `finish_reason "`+reason+`"`) || !strings.Contains(row.Error, "after 2 content chunks") {
			t.Errorf("finish_reason %q: error %q, want one naming it and the chunks before it", reason, row.Error)
		}
		if row.FirstToken != traces.Missing || row.LastToken != traces.Missing || row.TokenTimes != nil ||
			row.UsageOutput != traces.Missing || row.FinishReason != "" || row.Succeeded() {
			t.Errorf("finish_reason %q: the aborted request kept metrics: %+v", reason, row)
		}
	}
}

// A whole (non-streamed) response the engine ended early is a failure
// too, named by its finish_reason alone: it has no chunks to count.
func TestEngineAbortOfAWholeResponseIsAFailure(t *testing.T) {
	body := `{"choices":[{"index":0,"message":{"role":"assistant","content":"ab"},"finish_reason":"abort"}],"usage":{"prompt_tokens":60,"completion_tokens":2}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	status, got := r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi"))
	_, rows := r.finish(t)
	if status != http.StatusOK || string(got) != body {
		t.Errorf("the client got %d %q, want the response unchanged", status, got)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	row := rows[0]
	if want := `finish_reason "abort": the engine ended the request early`; row.Error != want {
		t.Errorf("error %q, want %q", row.Error, want)
	}
	if row.LastToken != traces.Missing || row.UsageOutput != traces.Missing || row.Succeeded() {
		t.Errorf("the aborted response kept metrics: %+v", row)
	}
}
