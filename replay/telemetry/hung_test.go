package telemetry

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// hungMetricsServer starts a server that never answers: each request is
// held until the client gives up or the test ends.
func hungMetricsServer(t testing.TB) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for the handler
	return srv
}
