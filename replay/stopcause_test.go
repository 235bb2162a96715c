package replay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A request in flight when the run stops for a reason of its own (a write
// error) names that reason, not an interrupt.
func TestStopCauseIsNamed(t *testing.T) {
	for _, mid := range []bool{true, false} {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if mid {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, `data: {"choices":[{"delta":{"content":"tok"}}]}`+"\n\n")
				w.(http.Flusher).Flush()
			}
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		c := mustClient(t, &cfg)
		ctx, stop := context.WithCancelCause(t.Context())
		time.AfterFunc(100*time.Millisecond, func() { stop(errors.New("replay: writing output: disk full")) })
		var r traces.Request
		r.Reset()
		r.ID, r.OutputTokens = "a", 5
		c.do(ctx, time.Now(), 0, &r, c.body([]byte("hi"), 5))
		close(release)
		srv.Close()
		if ErrorKind(r.Error) != KindCanceled || !strings.Contains(r.Error, "run stopped (replay: writing output: disk full)") || strings.Contains(r.Error, "interrupted") {
			t.Errorf("mid-stream %v: error %q, want canceled naming the write error", mid, r.Error)
		}
	}
}
