package proxy

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// stallWriter blocks every Write until release is closed: a trace on a
// disk that has stopped answering.
type stallWriter struct {
	traces.Writer
	release chan struct{}
}

func (w *stallWriter) Write(r *traces.Request) error {
	<-w.release
	return w.Writer.Write(r)
}

// A trace write that stalls must not hold up the response: a streamed
// response ends (its last chunk is sent) only when the handler returns,
// so a handler that writes rows itself keeps its client waiting on the
// disk.
func TestStalledTraceDoesNotHoldUpResponses(t *testing.T) {
	r := newRig(t, ".arrows", nil)
	sw := &stallWriter{Writer: r.p.w, release: make(chan struct{})}
	r.p.wmu.Lock()
	r.p.w = sw
	r.p.wmu.Unlock()
	done := make(chan int)
	go func() {
		status, _ := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
		done <- status
	}()
	select {
	case status := <-done:
		if status != 200 {
			t.Errorf("status %d", status)
		}
	case <-time.After(5 * time.Second):
		t.Error("the response did not end while the trace write stalled")
		close(sw.release)
		<-done
	}
	if t.Failed() {
		return
	}
	close(sw.release)
	if _, rows := r.finish(t); len(rows) != 1 {
		t.Errorf("%d rows, want 1", len(rows))
	}
}
