package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A stream the engine aborted still ends with usage and [DONE] (vLLM:
// finish_reason "abort" on engine shutdown, a pause or an abort request;
// "error" for a request-level failure). Its tokens stopped early: it is a
// failure, and none of its times reach the latency statistics.
func TestEngineAbortIsAFailure(t *testing.T) {
	for _, reason := range []string{"abort", "error"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
			w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n"))
			w.Write([]byte("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"" + reason + "\"}]}\n\n"))
			w.Write([]byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":60,\"completion_tokens\":2}}\n\n"))
			w.Write([]byte("data: [DONE]\n\n"))
		}))
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		s, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		r := out[0]
		if ErrorKind(r.Error) != KindStreamError || !strings.Contains(r.Error, `finish_reason "`+reason+`"`) || !strings.Contains(r.Error, "after 2 content chunks") {
			t.Errorf("finish_reason %q: error %q, want a %s naming it and the chunks before it", reason, r.Error, KindStreamError)
		}
		if r.FirstToken != traces.Missing || r.LastToken != traces.Missing || r.TokenTimes != nil || r.UsageOutput != traces.Missing || r.Succeeded() {
			t.Errorf("finish_reason %q: the aborted request kept metrics: %+v", reason, r)
		}
		if s.Failed != 1 || s.FailedByKind[KindStreamError] != 1 || s.TTFT.N != 0 || s.E2E.N != 0 {
			t.Errorf("finish_reason %q: summary failed %d by kind %v, TTFT n %d", reason, s.Failed, s.FailedByKind, s.TTFT.N)
		}
	}
}

// An engine abort stays a failure when a later finish_reason (another
// choice's, or a later chunk's) is an ordinary one: the proxy keeps the
// abort too, and the two must agree on which requests failed. A second
// choice in the abort's chunk fails the request first, as any chunk with
// choices a request did not ask for does.
func TestEngineAbortNotHiddenByLaterFinish(t *testing.T) {
	type stream struct{ finish, kind, names string }
	streams := map[string]stream{
		"later chunk": {"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"abort\"}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", KindStreamError, `finish_reason "abort"`},
		"same chunk": {"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"abort\"},{\"index\":1,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
			KindBadStream, "2 choices"},
	}
	for name, st := range streams {
		finish := st.finish
		for _, keep := range []bool{false, true} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
				w.Write([]byte(finish))
				w.Write([]byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":60,\"completion_tokens\":1}}\n\n"))
				w.Write([]byte("data: [DONE]\n\n"))
			}))
			cfg := testConfig(nil)
			cfg.BaseURL = srv.URL + "/v1"
			cfg.KeepText = keep
			s, out := runRows(t, cfg, rows(1, 0, 40, 5))
			srv.Close()
			if r := out[0]; ErrorKind(r.Error) != st.kind || !strings.Contains(r.Error, st.names) || r.Succeeded() || s.TTFT.N != 0 {
				t.Errorf("%s, keep text %v: error %q, finish reason %q, TTFT n %d: want a %s naming %s",
					name, keep, r.Error, r.FinishReason, s.TTFT.N, st.kind, st.names)
			}
		}
	}
}
