package replay

import (
	"strings"
	"testing"
)

// An interrupted run's summary says so: its unsent rows and the requests
// it cut short (canceled) are the interrupt's, not the server's failures.
func TestPrintSaysTheRunWasInterrupted(t *testing.T) {
	s := &Summary{Run: 2, Interrupted: true, Sent: 5, Succeeded: 2, Failed: 3, NotSent: 4,
		FailedByKind: map[string]int{KindCanceled: 2, "server_error": 1}}
	var b strings.Builder
	s.Print(&b)
	got := b.String()
	for _, want := range []string{
		"run 2 (interrupted): sent 5",
		"4 not sent (the interrupt stopped the run)",
		"canceled 2 (cut short by the interrupt)",
		"server_error 1\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// A run that was not interrupted keeps the plain wording: its canceled
// requests were stopped by a write error, not an interrupt.
func TestPrintUninterruptedRunSaysNoInterrupt(t *testing.T) {
	s := &Summary{Run: 1, Sent: 2, Failed: 2, NotSent: 1, FailedByKind: map[string]int{KindCanceled: 2}}
	var b strings.Builder
	s.Print(&b)
	got := b.String()
	if strings.Contains(got, "interrupt") {
		t.Errorf("summary of a run that was not interrupted speaks of an interrupt:\n%s", got)
	}
	if !strings.Contains(got, "1 not sent (the run stopped early)") || !strings.Contains(got, "canceled 2\n") {
		t.Errorf("summary:\n%s", got)
	}
}
