package traces

import (
	"testing"
	"time"
)

// windowRow is a sent request: sent at send ms, last token at done ms
// (0: it failed).
func windowRow(send, done int64) *Request {
	r := &Request{}
	r.Reset()
	r.Arrival, r.ScheduledSend, r.ActualSend = send*1e6, send*1e6, send*1e6
	if done == 0 {
		r.Error = "HTTP 500"
	} else {
		r.FirstToken, r.LastToken = done*1e6, done*1e6
	}
	return r
}

func TestWindow(t *testing.T) {
	var w Window
	if w.Duration() != 0 || w.PerSec(5) != 0 {
		t.Fatalf("empty window: %v, %v req/s", w.Duration(), w.PerSec(5))
	}
	warm := windowRow(0, 9000)
	warm.Warmup = true
	unsent := &Request{}
	unsent.Reset()
	for _, r := range []*Request{warm, unsent, windowRow(1000, 0)} {
		w.Add(r)
	}
	if w.Duration() != 0 {
		t.Errorf("a failure alone: %v, want an empty window", w.Duration())
	}
	// The failure sent first opens the window: the run spent its time.
	w.Add(windowRow(2000, 2500))
	w.Add(windowRow(1500, 3000))
	if got, want := w.Duration(), 2*time.Second; got != want {
		t.Errorf("window %v, want %v: the failed send at 1 s to the last token at 3 s", got, want)
	}
	if got := w.PerSec(3); got != 1.5 {
		t.Errorf("3 over 2 s: %v a second, want 1.5", got)
	}
}
