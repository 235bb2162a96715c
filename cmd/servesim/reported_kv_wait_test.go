package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/telemetry"
)

// The engine's KV capacity is read before the live runs: a hung /metrics
// holds calibrate back for telemetry.PreRunWait at most, and the capacity is
// said not read.
func TestReportedKVWaitsAFewSecondsAtMost(t *testing.T) {
	t.Parallel() // it only waits: no command runs in-process, where urfave/cli writes its globals
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release) // before Close, which waits for the handler
	var out bytes.Buffer
	begin := time.Now()
	kv := readReportedKV(context.Background(), srv.URL+"/v1", &out)
	if waited := time.Since(begin); waited > telemetry.PreRunWait+time.Second {
		t.Errorf("returned after %v, want at most about %v", waited, telemetry.PreRunWait)
	}
	if kv != nil || !strings.Contains(out.String(), "not read ("+srv.URL+"/metrics: no page within") {
		t.Errorf("got %+v, said %q: want nil, said not read, naming the page waited for", kv, out.String())
	}
}
