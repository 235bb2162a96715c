package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A streamed POST the proxy passes through unrecorded (here
// /v1/responses) comes back whole, even when the engine answers as soon as
// it has read the request's JSON. Writing the response headers makes the
// proxy's server drain and close the request body while the upstream
// transport may still read it once more for its end, and that failed read
// tore down the upstream connection mid-stream: 2 or 3 of these 1200
// streams were cut.
func TestPassThroughStreamIsNotCut(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for i := range 3 {
			time.Sleep(time.Millisecond)
			fmt.Fprintf(w, "data: {\"n\":%d}\n\n", i)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	const rounds, concurrent = 300, 4
	cut := 0
	for range rounds {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range concurrent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Post(r.srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":"hi","stream":true}`))
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if err != nil || !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
					mu.Lock()
					cut++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	if cut > 0 {
		t.Errorf("%d of %d streams cut; proxy log:\n%s", cut, rounds*concurrent, r.logs)
	}
}
