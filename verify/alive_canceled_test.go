package verify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A canceled run does not wait out Alive's retries: each pause between
// health probes ends with the context.
func TestAliveReturnsOnCancel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	e := &Engine{spec: EngineSpec{HealthURL: srv.URL}, health: srv.URL}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	ok, why := e.Alive(ctx)
	if ok {
		t.Fatal("an engine that answers 503 is alive")
	}
	if !strings.Contains(why, "canceled") {
		t.Errorf("reason %q: want the cancellation named, not a dead engine", why)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("Alive took %v after its context was canceled: want it back at once", d)
	}
}
