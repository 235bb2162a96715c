package proxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// stagedRows reads the rows of the staging stream as a killed session
// leaves it, waiting up to 5 s for want of them to be flushed.
func stagedRows(t *testing.T, out string, want int) (traces.Meta, []*traces.Request) {
	t.Helper()
	var meta traces.Meta
	var rows []*traces.Request
	for deadline := time.Now().Add(5 * time.Second); len(rows) != want && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		rd, err := traces.OpenTolerant(stagingPath(out))
		if err != nil {
			t.Fatal(err)
		}
		meta, rows = rd.Meta(), nil
		for rd.Next() {
			rows = append(rows, rd.At().Clone())
		}
		rd.Close()
	}
	return meta, rows
}

// heldUpstream answers at once, except a request with X-Hold, which it
// holds until release is closed, saying on arrived that it has it.
func heldUpstream(t *testing.T) (url string, arrived, release chan struct{}) {
	arrived, release = make(chan struct{}, 1), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("X-Hold") != "" {
			arrived <- struct{}{}
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
	}))
	t.Cleanup(up.Close)
	return up.URL, arrived, release
}

// A long request in flight holds back no later row: each is in the
// staging stream, where a kill leaves it, one flush after it finished,
// and that stream converts in arrival order. Close writes the trace in
// arrival order.
func TestRowsBehindALongRequestAreStaged(t *testing.T) {
	url, arrived, release := heldUpstream(t)
	r := newRig(t, ".parquet", func(c *Config) {
		c.Upstream = url
		c.FlushInterval = 5 * time.Millisecond
	})
	var held sync.WaitGroup
	held.Add(1)
	go func() {
		defer held.Done()
		r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hold"), "X-Hold", "1")
	}()
	<-arrived
	const n = 4
	for i := 0; i < n; i++ {
		if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", false, false, fmt.Sprint(i))); status != 200 {
			t.Fatalf("status %d", status)
		}
	}
	_, staged := stagedRows(t, r.out, n)
	if len(staged) != n {
		close(release)
		held.Wait()
		t.Fatalf("%d rows in the staging stream while the first request is in flight, want the %d finished", len(staged), n)
	}
	conv := filepath.Join(t.TempDir(), "killed.jsonl")
	if _, err := traces.Convert(context.Background(), stagingPath(r.out), conv); err != nil {
		t.Errorf("converting the staging stream: %v", err)
	}
	close(release)
	held.Wait()
	_, rows := r.finish(t)
	if len(rows) != n+1 {
		t.Fatalf("%d rows, want %d", len(rows), n+1)
	}
	for i, row := range rows {
		if row.ID != fmt.Sprint(i) || (i > 0 && row.Arrival < rows[i-1].Arrival) {
			t.Errorf("row %d: id %s arrival %d: want arrival order", i, row.ID, row.Arrival)
		}
	}
}

// The staging stream is what a kill leaves: its rows must not read as a
// finished session's, in the stream or converted.
func TestStagingStreamIsMarkedPartial(t *testing.T) {
	r := newRig(t, ".parquet", func(c *Config) { c.FlushInterval = 5 * time.Millisecond })
	if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", false, true, "hi")); status != 200 {
		t.Fatalf("status %d", status)
	}
	staged, rows := stagedRows(t, r.out, 1)
	if len(rows) != 1 {
		t.Fatalf("%d rows staged, want 1", len(rows))
	}
	conv := filepath.Join(t.TempDir(), "killed.jsonl")
	if _, err := traces.Convert(context.Background(), stagingPath(r.out), conv); err != nil {
		t.Fatal(err)
	}
	converted, _, err := traces.ReadAll(conv)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]traces.Meta{"staging stream": staged, "converted staging stream": converted} {
		if got := m.Extra["proxy.status"]; got != "partial" {
			t.Errorf("%s: proxy.status %q, want partial", name, got)
		}
	}
	if meta, _ := r.finish(t); meta.Extra["proxy.status"] != "complete" {
		t.Errorf("trace: proxy.status %q, want complete", meta.Extra["proxy.status"])
	}
}
