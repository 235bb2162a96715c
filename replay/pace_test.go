package replay

import (
	"context"
	"testing"
	"time"
)

// The pacer may be late (the host decides how late) but never early, for
// waits shorter than its spin, its kernel sleep and its timer margin, and
// for a due time already past.
func TestPacerNeverEarly(t *testing.T) {
	p := newPacer()
	for _, ahead := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 300 * time.Microsecond,
		2 * time.Millisecond, 4 * time.Millisecond, 20 * time.Millisecond} {
		for range 5 {
			due := time.Now().Add(ahead)
			if err := p.waitUntil(context.Background(), due); err != nil {
				t.Fatal(err)
			}
			if now := time.Now(); now.Before(due) {
				t.Errorf("%v ahead: returned %v early", ahead, due.Sub(now))
			}
		}
	}
}

func TestPacerStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if err := newPacer().waitUntil(ctx, t0.Add(time.Hour)); err != context.DeadlineExceeded {
		t.Fatalf("waitUntil = %v, want %v", err, context.DeadlineExceeded)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("waitUntil returned %v after its context ended", d)
	}
}
