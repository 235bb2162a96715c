package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The engine's KV capacity is read before the live runs: a hung /metrics
// holds calibrate back for reportedKVWait at most, and the capacity is
// said not read.
func TestReportedKVWaitsAFewSecondsAtMost(t *testing.T) {
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
	if waited := time.Since(begin); waited > reportedKVWait+time.Second {
		t.Errorf("returned after %v, want at most about %v", waited, reportedKVWait)
	}
	if kv != nil || !strings.Contains(out.String(), "not read (no page within") {
		t.Errorf("got %+v, said %q: want nil, said not read", kv, out.String())
	}
	if !strings.Contains(out.String(), srv.URL+"/metrics") {
		t.Errorf("said %q: want the page waited for named", out.String())
	}
}
