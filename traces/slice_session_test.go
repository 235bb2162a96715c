package traces

import (
	"testing"
	"time"
)

// A simulated session-waiting run is on the arrivals' clock (a held turn
// is issued after its arrival): a slice re-bases its times and stays that
// run's, while a trace made from it keeps the turnaround it ran with
// under an input_ name.
func TestSliceSimulatedSessionWait(t *testing.T) {
	ms := int64(time.Millisecond)
	rows := rowsAt(ms, 2*ms)
	for _, r := range rows {
		r.ScheduledSend, r.StartTime = r.Arrival+5*ms, r.Arrival+6*ms
		r.FirstToken, r.LastToken = r.Arrival+7*ms, r.Arrival+8*ms
	}
	m := Meta{Source: "simulated"}
	m.Set("session_wait", "1ms")
	s := Slice(&sliceReader{meta: m, rows: rows}, ms, 0, 0)
	out := drain(t, s)
	if len(out) != 2 || out[0].ScheduledSend != 5*ms || out[1].FirstToken != 8*ms {
		t.Fatalf("rows %+v: want times re-based with the arrivals", out)
	}
	got := s.Meta()
	if got.Source != "simulated" || got.Extra["session_wait"] != "1ms" {
		t.Errorf("slice: source %q, extra %v: want the run's own session_wait", got.Source, got.Extra)
	}
	got = got.Clone()
	got.MoveRunToInput(false)
	if got.Extra["input_session_wait"] != "1ms" || got.Extra["session_wait"] != "" {
		t.Errorf("as an input: extra %v: want session_wait kept as the input's", got.Extra)
	}
}
