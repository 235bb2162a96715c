package traces

import "time"

// Window is a run's measured span: from the first send of an observed,
// non-warm-up request (its scheduled send, else its arrival; failures
// count, since the run spent that time on them) to the last token of a
// success. Throughput and goodput are counts over it, so `record`, `trace
// stats`, `compare` and `report` divide by the same time. The zero Window
// is empty.
type Window struct {
	first, last   int64
	sent, success bool
}

// Add widens w to cover r.
func (w *Window) Add(r *Request) {
	if r.Warmup || !r.Observed() {
		return
	}
	if o := r.origin(); !w.sent || o < w.first {
		w.first, w.sent = o, true
	}
	if r.Succeeded() && (!w.success || r.LastToken > w.last) {
		w.last, w.success = r.LastToken, true
	}
}

// Duration is the window's length; 0 until a success ends after the
// first send.
func (w Window) Duration() time.Duration {
	if !w.sent || !w.success || w.last <= w.first {
		return 0
	}
	return time.Duration(w.last - w.first)
}

// Bounds are the window's ends, in the trace's ns; ok is false for an
// empty window (Duration 0).
func (w Window) Bounds() (first, last int64, ok bool) {
	if w.Duration() == 0 {
		return 0, 0, false
	}
	return w.first, w.last, true
}

// PerSec is n over the window in events a second; 0 for an empty window.
func (w Window) PerSec(n int64) float64 {
	d := w.Duration()
	if d == 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
