package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A 200 whose body is no stream (an error sent as JSON) and whose
// connection then stays open fails as the timeout that ended it, but
// still shows what the server said, as the same body ended cleanly does.
func TestTimeoutWithoutEventsShowsTheBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"error":{"message":"engine overloaded"}}`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Timeout = 100 * time.Millisecond
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	msg := out[0].Error
	if ErrorKind(msg) != KindTimeout || !strings.Contains(msg, "engine overloaded") {
		t.Fatalf("error %q: want a timeout that shows the body's message", msg)
	}
}
