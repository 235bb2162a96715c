package replay

import (
	"context"
	"time"
)

// pacer waits for absolute send times. It sleeps on a Go timer until a
// margin before the due time, then in the kernel until spinMargin before
// it, and spins on the monotonic clock for the rest. A timer-woken
// goroutine goes to the front of its processor's run queue (runnext), so
// the pacer keeps its turn even when thousands of stream goroutines are
// runnable. The margin adapts to how late the timer has recently been: a
// few µs when the process is busy (every scheduling round checks timers),
// up to ~1 ms when it is idle (the Go runtime then rounds poll waits under
// 1 ms up to 1 ms). The kernel's sleep (Linux) wakes within tens of µs, so
// the margin costs no CPU: spinning through it took two thirds of the
// client's CPU at 2,000 requests/s. Elsewhere the pacer spins through it.
type pacer struct {
	timer *time.Timer
	late  time.Duration // decaying maximum of recent timer lateness
}

const (
	minMargin  = 40 * time.Microsecond
	maxMargin  = 3 * time.Millisecond
	spinMargin = 100 * time.Microsecond
)

func newPacer() *pacer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pacer{timer: t, late: maxMargin}
}

// waitUntil blocks until the monotonic clock reaches t or ctx ends. When
// sends are sparse it spins longer (up to a tenth of the wait), since one
// late timer then costs a whole request's lag and the spin costs little.
func (p *pacer) waitUntil(ctx context.Context, t time.Time) error {
	floor := time.Until(t) / 10
	for {
		margin := min(max(p.late+p.late/4, floor, minMargin), maxMargin)
		d := time.Until(t)
		if d <= margin {
			break
		}
		wake := time.Now().Add(d - margin)
		p.timer.Reset(d - margin)
		select {
		case <-p.timer.C:
		case <-ctx.Done():
			p.timer.Stop()
			return ctx.Err()
		}
		late := time.Since(wake)
		p.late = max(late, p.late-p.late/16)
	}
	if d := time.Until(t) - spinMargin; kernelSleeps && d > 0 {
		sleepKernel(d)
	}
	for time.Now().Before(t) {
	}
	return ctx.Err()
}
