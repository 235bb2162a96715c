package proxy

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// slowFlushWriter makes each Flush (an fsync in the real writer) take d,
// and says when the first one starts.
type slowFlushWriter struct {
	traces.Writer
	d       time.Duration
	once    sync.Once
	started chan struct{}
}

func (w *slowFlushWriter) Flush() error {
	w.once.Do(func() { close(w.started) })
	time.Sleep(w.d)
	if f, ok := w.Writer.(traces.Flusher); ok {
		return f.Flush()
	}
	return nil
}

// A request that comes in while the rows are being made durable is
// stamped when it came in, and forwarded at once: the flush (an fsync,
// which can take a long time on a busy disk) must not hold it up.
func TestArrivalNotHeldUpByAFlush(t *testing.T) {
	const stall = time.Second
	r := newRig(t, ".jsonl", func(c *Config) { c.FlushInterval = 10 * time.Millisecond })
	slow := &slowFlushWriter{Writer: r.p.w, d: stall, started: make(chan struct{})}
	r.p.wmu.Lock()
	r.p.w = slow
	r.p.wmu.Unlock()
	// The first row makes the trace dirty: a flush of it starts.
	first := make(chan error, 1)
	go func() {
		resp, err := http.Post(r.srv.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(chatBody("m", false, false, "first")))
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		first <- err
	}()
	<-slow.started
	sent := r.p.now()
	t0 := time.Now()
	if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", false, false, "second")); status != 200 {
		t.Fatalf("status %d", status)
	}
	rtt := time.Since(t0)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	_, rows := r.finish(t)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if lag := time.Duration(rows[1].Arrival - sent); lag > stall/4 {
		t.Errorf("second request stamped %v after it was sent, want well under the %v flush", lag, stall)
	}
	if lag := time.Duration(rows[1].ActualSend - sent); lag > stall/4 {
		t.Errorf("second request forwarded %v after it was sent, want well under the %v flush", lag, stall)
	}
	// Nor does it hold up the end of a response (a chunked one's last
	// chunk goes when the handler returns, after the row is handed over).
	if rtt > stall/4 {
		t.Errorf("second request took %v, want well under the %v flush", rtt, stall)
	}
}
