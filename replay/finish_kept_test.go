package replay

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A chunk after the one that finished the choice (vLLM's usage chunk with
// a choice, a trailing empty delta) may carry finish_reason null or "":
// that is no reason, and the one already seen is recorded.
func TestFinishReasonSurvivesLaterEmptyReasons(t *testing.T) {
	for _, later := range []string{`null`, `""`} {
		for _, keep := range []bool{false, true} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"ab\"},\"finish_reason\":null}]}\n\n"))
				w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"length\"}]}\n\n"))
				w.Write([]byte("data: {\"choices\":[{\"delta\":{},\"finish_reason\":" + later + "}]}\n\n"))
				w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":" + later + "}],\"usage\":{\"prompt_tokens\":60,\"completion_tokens\":2}}\n\n"))
				w.Write([]byte("data: [DONE]\n\n"))
			}))
			cfg := testConfig(nil)
			cfg.BaseURL = srv.URL + "/v1"
			cfg.KeepText = keep
			_, out := runRows(t, cfg, rows(1, 0, 40, 5))
			srv.Close()
			if r := out[0]; r.Error != "" || r.FinishReason != "length" {
				t.Errorf("later finish_reason %s, keep text %v: error %q, finish reason %q, want a success that finished with %q", later, keep, r.Error, r.FinishReason, "length")
			}
		}
	}
}
