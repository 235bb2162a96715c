package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A request body the proxy cannot read, answered with success but no
// usage: its prompt length is an estimate from the bytes it has (not 0),
// and Stats counts it as unparsed, so the estimate does not pass unnoticed.
func TestUnreadableRequestIsEstimatedAndCounted(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","choices":[{"index":0,"text":"four bytes each","finish_reason":"stop"}]}`)
	}))
	t.Cleanup(ok.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = ok.URL })
	body := `{"model":"m","prompt":"a prompt the proxy never sees whole because the JSON is cut` // no closing
	if status, got := r.post(t, "/v1/completions", body); status != 200 {
		t.Fatalf("status %d: %s", status, got)
	}
	_, rows := r.finish(t)
	if len(rows) != 1 || !rows[0].Succeeded() || rows[0].UsagePrompt != traces.Missing {
		t.Fatalf("rows %+v: want one success without usage", rows)
	}
	if want := int32((len(body) + 3) / 4); rows[0].PromptTokens != want {
		t.Errorf("prompt tokens %d, want the estimate from the body's %d bytes, %d", rows[0].PromptTokens, len(body), want)
	}
	if st := r.p.Stats(); st.Unparsed != 1 || st.Failed != 0 {
		t.Errorf("stats %+v: want 1 unparsed, 0 failed", st)
	}
}
