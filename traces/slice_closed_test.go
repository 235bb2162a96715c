package traces

import (
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
