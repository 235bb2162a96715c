package proxy

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A body over MaxRequestBody never reaches the engine: its row must not
// read as a request that was sent and failed, which simulate would serve
// and replay would count as the engine's failure. It is a failure of the
// capture (source_failed), with the proxy's error and no upstream status,
// and trace stats counts it among both the failed and the source-failed.
func TestRefusedBodyRowIsSourceFailed(t *testing.T) {
	small := chatBody("m", false, false, "hi")
	r := newRig(t, ".jsonl", func(c *Config) { c.MaxRequestBody = int64(len(small)) })
	if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi there")); status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", status)
	}
	if status, _ := r.post(t, "/v1/chat/completions", small); status != http.StatusOK {
		t.Fatalf("body at the limit: status %d", status)
	}
	_, rows := r.finish(t)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	refused, sent := rows[0], rows[1]
	if !refused.SourceFailed || refused.HTTPStatus != traces.Missing ||
		refused.Error != fmt.Sprintf("request body over %d bytes: not forwarded", len(small)) {
		t.Errorf("refused row: source_failed %v, http_status %d, error %q; want source_failed, no status, the proxy's error",
			refused.SourceFailed, refused.HTTPStatus, refused.Error)
	}
	if sent.SourceFailed || !sent.Succeeded() {
		t.Errorf("forwarded row: source_failed %v, error %q; want a success", sent.SourceFailed, sent.Error)
	}
	b := traces.NewStatsBuilder(traces.SLO{})
	for _, row := range rows {
		b.Add(row)
	}
	if st := b.Stats(); st.Failed != 1 || st.SourceFailed != 1 || st.Succeeded != 1 {
		t.Errorf("stats: %d failed, %d source failed, %d succeeded; want 1 each", st.Failed, st.SourceFailed, st.Succeeded)
	}
}
