package replay

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A failed request keeps no latency times, but records when its failure
// was seen: it may have run in the engine until then (calibration's step
// recovery needs to know how long).
func TestFailedRequestRecordsWhenItFailed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
		w.(http.Flusher).Flush()
		time.Sleep(30 * time.Millisecond)
		w.Write([]byte("data: {\"error\":{\"message\":\"engine died\"}}\n\n"))
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	r := out[0]
	if r.Error == "" || r.FirstToken != traces.Missing || r.TokenTimes != nil {
		t.Fatalf("error %q, first token %d, %d token times; want a failure without latency times", r.Error, r.FirstToken, len(r.TokenTimes))
	}
	if r.FailTime == traces.Missing || r.FailTime-r.ActualSend < int64(30*time.Millisecond) {
		t.Errorf("failed_ns %d, sent at %d: want the failure's time, at least 30 ms after the send", r.FailTime, r.ActualSend)
	}
}
