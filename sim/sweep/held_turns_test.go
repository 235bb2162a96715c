package sweep

import (
	"fmt"
	"testing"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Session waiting holds a turn only behind an earlier turn of its
// session, and a row failed in the source is never sent, so it neither
// waits nor holds: a trace whose sessions have one turn each, or whose
// repeated session rows failed in the source, holds nothing.
func TestHoldsTurnsOnlyWhereASessionHasTwoSentTurns(t *testing.T) {
	for _, c := range []struct {
		name     string
		sessions []string
		failed   int // the row failed in the source, -1 none
		want     bool
	}{
		{"no sessions", []string{"", "", ""}, -1, false},
		{"one turn each", []string{"a", "b", "c"}, -1, false},
		{"second turn failed", []string{"a", "a", "b"}, 1, false},
		{"first turn failed", []string{"a", "a", "b"}, 0, false},
		{"two turns", []string{"a", "b", "a"}, -1, true},
	} {
		var reqs []traces.Request
		for i, s := range c.sessions {
			var r traces.Request
			r.Reset()
			r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(i)*1e9, 100, 10
			r.SessionID, r.SourceFailed = s, i == c.failed
			reqs = append(reqs, r)
		}
		tr, err := LoadTrace(c.name, &rowsReader{reqs: reqs})
		if err != nil {
			t.Fatal(err)
		}
		ev := &evaluator{t: tr, wait: &sim.SessionWait{}}
		if got := ev.holdsTurns(); got != c.want {
			t.Errorf("%s: holdsTurns %v, want %v", c.name, got, c.want)
		}
		if ev.wait = nil; ev.holdsTurns() {
			t.Errorf("%s: holdsTurns without session waiting", c.name)
		}
	}
}
