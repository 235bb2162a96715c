package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// With n > 1, one choice the engine ended early cuts the request short
// whatever the other choices' finish_reason, in the same chunk or a
// later one: the row is a failure, not a success timed to the abort.
func TestEngineAbortOfOneChoiceIsAFailure(t *testing.T) {
	content := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}},{\"index\":1,\"delta\":{\"content\":\"b\"}}]}\n\n"
	usage := "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":60,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n"
	for name, ends := range map[string]string{
		"same chunk": "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"abort\"},{\"index\":1,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
		"later chunk": "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"error\"}]}\n\n" +
			"data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"c\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":1,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
	} {
		stream := content + ends + usage
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte(stream))
		}))
		r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
		r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
		_, rows := r.finish(t)
		up.Close()
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows, want 1", name, len(rows))
		}
		row := rows[0]
		if !strings.Contains(row.Error, "the engine ended the request early") || row.Succeeded() || row.FirstToken != traces.Missing {
			t.Errorf("%s: one choice aborted, the other finished: error %q, first token %d, want a failure", name, row.Error, row.FirstToken)
		}
	}
}
