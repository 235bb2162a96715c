package traces

import (
	"path/filepath"
	"testing"
	"time"
)

// Spreading a measured trace moves its arrivals but not when the requests
// were sent or answered: a row spread to a later arrival had its first
// token before it arrived (a proxy recording, timed from the arrival, a
// negative TTFT). The spread file is a new workload, as a scaled one is.
func TestSpreadMeasuredTrace(t *testing.T) {
	s := int64(time.Second)
	rows := rowsAt(s, s, 3*s)
	for _, r := range rows { // sent together, answered 100 ms later
		r.ActualSend, r.FirstToken, r.LastToken, r.HTTPStatus = r.Arrival, r.Arrival+s/10, r.Arrival+s/5, 200
		r.UsageOutput = 1
	}
	path := filepath.Join(t.TempDir(), "proxy.parquet")
	if err := WriteAll(path, Meta{Source: "live"}, rows); err != nil {
		t.Fatal(err)
	}
	r, err := Import(path, FormatServesim, ImportOptions{Spread: s})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, q := range drain(t, r) {
		if q.FirstToken != Missing && q.FirstToken < q.Arrival {
			t.Errorf("row %s: arrival %v, first token %v: answered before it arrived", q.ID, time.Duration(q.Arrival), time.Duration(q.FirstToken))
		}
	}
	r, err = Import(path, FormatServesim, ImportOptions{Spread: s})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := ComputeStats(r, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if st.TTFT != nil && st.TTFT.Mean < 100 {
		t.Errorf("TTFT mean %v ms over the spread arrivals, measured 100 ms", st.TTFT.Mean)
	}
}
