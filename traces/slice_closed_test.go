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
