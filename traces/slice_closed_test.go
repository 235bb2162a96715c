package traces

import (
	"path/filepath"
	"testing"
	"time"
)

// A closed-loop recording keeps the input's arrivals, but its observed
// times are on the run's own clock: re-basing them by the window start
// gave sends and tokens before the trace began.
func TestSliceClosedLoopRecording(t *testing.T) {
	rows := rowsAt(int64(100*time.Second), int64(200*time.Second))
	for i, r := range rows { // the loop ran them back to back from 0
		r.ScheduledSend, r.ActualSend = int64(i)*int64(time.Second), int64(i)*int64(time.Second)
		r.FirstToken, r.LastToken = r.ActualSend+int64(time.Millisecond), r.ActualSend+int64(time.Second)
	}
	in := &sliceReader{rows: rows}
	in.meta.Set("replay.arrival", "closed")
	for _, r := range drain(t, Slice(in, int64(50*time.Second), 0, 0)) {
		if r.ActualSend < 0 && r.ActualSend != Missing || r.FirstToken < 0 && r.FirstToken != Missing {
			t.Fatalf("row %s: arrival %d, actual_send %d, first_token %d: observed times before the trace began",
				r.ID, r.Arrival, r.ActualSend, r.FirstToken)
		}
	}
}

// --drop-failed re-bases a servesim trace to its first row kept; on a
// closed-loop recording that moved the run's own times before the trace
// began, as slicing did.
func TestDropFailedClosedLoopRecording(t *testing.T) {
	rows := rowsAt(0, int64(5*time.Second))
	rows[0].SourceFailed = true
	for _, r := range rows { // two clients: both sent at once
		r.ScheduledSend, r.ActualSend, r.HTTPStatus = 0, 0, 200
		r.FirstToken, r.LastToken = int64(time.Millisecond), int64(time.Second)
	}
	m := Meta{Source: "live"}
	m.Set("replay.arrival", "closed")
	path := filepath.Join(t.TempDir(), "rec.parquet")
	if err := WriteAll(path, m, rows); err != nil {
		t.Fatal(err)
	}
	_, got := importAll(t, path, FormatServesim, ImportOptions{DropFailed: true})
	if len(got) != 1 {
		t.Fatalf("%d rows, want 1", len(got))
	}
	if r := got[0]; r.Arrival != 0 || r.ScheduledSend < 0 || r.FirstToken < 0 {
		t.Errorf("arrival %d, scheduled_send %d, first_token %d: want arrival 0 and the run's times as measured (0, 1 ms)",
			r.Arrival, r.ScheduledSend, r.FirstToken)
	}
}

// simulatedClosedLoop is a simulated closed loop's rows: two clients pick
// up a request each at 0, and they reach the engine one gap (1 ms) apart.
func simulatedClosedLoop() (Meta, []*Request) {
	gap := int64(time.Millisecond)
	rows := rowsAt(gap, 2*gap)
	for _, r := range rows {
		r.ScheduledSend, r.StartTime = 0, r.Arrival
		r.FirstToken, r.LastToken = r.Arrival+gap, r.Arrival+2*gap
	}
	m := Meta{Source: "simulated"}
	m.Set("closed_loop", "2")
	m.Set("closed_loop_gap", "1ms")
	return m, rows
}

// A simulated closed loop's latencies run from the issue, before the
// arrival: a window cut by arrival and re-based to its start gave issue
// times before the trace began (scheduled_send_ns -1000000).
func TestSliceSimulatedClosedLoop(t *testing.T) {
	m, rows := simulatedClosedLoop()
	in := &sliceReader{meta: m, rows: rows}
	s := Slice(in, int64(time.Millisecond), 0, 0)
	for _, r := range drain(t, s) {
		if r.ScheduledSend < 0 && r.ScheduledSend != Missing {
			t.Fatalf("row %s: arrival %d, scheduled_send %d: issued before the trace began", r.ID, r.Arrival, r.ScheduledSend)
		}
	}
	if got := s.Meta(); got.Source != "" || got.Extra["input_closed_loop"] != "2" {
		t.Errorf("source %q, input_closed_loop %q: want an input trace that names the loop it came from", got.Source, got.Extra["input_closed_loop"])
	}
}

// --drop-failed re-based a simulated closed loop's issue times with its
// arrivals, before the trace began.
func TestDropFailedSimulatedClosedLoop(t *testing.T) {
	m, rows := simulatedClosedLoop()
	rows[0].SourceFailed = true
	path := filepath.Join(t.TempDir(), "sim.parquet")
	if err := WriteAll(path, m, rows); err != nil {
		t.Fatal(err)
	}
	_, got := importAll(t, path, FormatServesim, ImportOptions{DropFailed: true})
	if len(got) != 1 {
		t.Fatalf("%d rows, want 1", len(got))
	}
	if r := got[0]; r.Arrival != int64(time.Millisecond) || r.ScheduledSend != 0 {
		t.Errorf("arrival %d, scheduled_send %d: want the first row's arrival (1 ms) and the issue as measured (0)", r.Arrival, r.ScheduledSend)
	}
}

// A window from the trace start moves no time: a closed-loop recording's
// first rows keep the times the run measured them at, and the run that
// measured them.
func TestSliceHeadKeepsClosedLoopRecording(t *testing.T) {
	rows := rowsAt(int64(100*time.Second), int64(200*time.Second), int64(300*time.Second))
	for i, r := range rows { // the loop ran them back to back from 0
		r.ScheduledSend, r.ActualSend = int64(i)*int64(time.Second), int64(i)*int64(time.Second)
		r.FirstToken, r.LastToken = r.ActualSend+int64(time.Millisecond), r.ActualSend+int64(time.Second)
	}
	recorded := cloneRows(rows)
	in := &sliceReader{meta: Meta{Source: "live", Engine: "vllm"}, rows: rows}
	in.meta.Set("replay.arrival", "closed")
	s := Slice(in, 0, 0, 2)
	got := drain(t, s)
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2", len(got))
	}
	for i, r := range got {
		if w := recorded[i]; r.Arrival != w.Arrival || r.ActualSend != w.ActualSend || r.FirstToken != w.FirstToken {
			t.Errorf("row %s: arrival %d, actual_send %d, first_token %d: want %d, %d, %d as recorded",
				r.ID, r.Arrival, r.ActualSend, r.FirstToken, w.Arrival, w.ActualSend, w.FirstToken)
		}
	}
	if m := s.Meta(); m.Source != "live" || m.Engine != "vllm" || m.Extra["replay.arrival"] != "closed" {
		t.Errorf("source %q, engine %q, replay.arrival %q: want the recording's run (live, vllm, closed)",
			m.Source, m.Engine, m.Extra["replay.arrival"])
	}
}

// --head alone keeps a simulated closed loop's first rows as simulated:
// issues at 0, before their arrivals, as in the whole trace.
func TestSliceHeadKeepsSimulatedClosedLoop(t *testing.T) {
	m, rows := simulatedClosedLoop()
	simulated := cloneRows(rows)
	s := Slice(&sliceReader{meta: m, rows: rows}, 0, 0, 1)
	got := drain(t, s)
	if len(got) != 1 {
		t.Fatalf("%d rows, want 1", len(got))
	}
	if r, w := got[0], simulated[0]; r.Arrival != w.Arrival || r.ScheduledSend != 0 || r.FirstToken != w.FirstToken {
		t.Errorf("arrival %d, scheduled_send %d, first_token %d: want %d, 0, %d as simulated",
			r.Arrival, r.ScheduledSend, r.FirstToken, w.Arrival, w.FirstToken)
	}
	if m := s.Meta(); m.Source != "simulated" || m.Extra["closed_loop"] != "2" {
		t.Errorf("source %q, closed_loop %q: want the simulated run (simulated, 2)", m.Source, m.Extra["closed_loop"])
	}
}

// cloneRows deep-copies rows: a reader may change the rows it hands out.
func cloneRows(rows []*Request) []*Request {
	out := make([]*Request, len(rows))
	for i, r := range rows {
		out[i] = r.Clone()
	}
	return out
}
