package traces

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A trace with session ids says how many sessions it holds, how many
// turns they take and what share of rows continue one. The sessions are
// the trace's: a warm-up row is a turn of its session, and a measured row
// after it continues that session, though warm-up rows stay out of the
// lengths. Rows without a session belong to none.
func TestStatsSessions(t *testing.T) {
	var rows []*Request
	for i, sess := range []string{"w", "a", "b", "a", "", "c", "a", "b", "w"} {
		r := &Request{}
		r.Reset()
		r.Arrival, r.PromptTokens, r.OutputTokens = int64(i)*1e9, 10, 2
		r.SessionID, r.Warmup = sess, i == 0
		if r.Warmup {
			r.PromptTokens = 999
		}
		rows = append(rows, r)
	}
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	// Sessions a (3 turns), b (2), c (1), w (2: its warm-up turn included).
	ss := s.Sessions
	if ss == nil {
		t.Fatal("no session stats for a trace with session ids")
	}
	if ss.Count != 4 || ss.Turns == nil || ss.Turns.Mean != 2 || ss.Turns.P50 != 2 || ss.Turns.P90 != 3 || ss.Turns.Max != 3 {
		t.Errorf("sessions %d, turns %+v; want 4 sessions of mean 2, p50 2, p90 3, max 3 turns", ss.Count, ss.Turns)
	}
	if s.Input == nil || s.Input.Max != 10 {
		t.Errorf("input lengths %+v, want the warm-up row's 999 left out", s.Input)
	}
	if want := 4.0 / 8; ss.ContinuedShare != want { // a twice, b and w once, of 8 measured rows
		t.Errorf("continued share %v, want %v", ss.ContinuedShare, want)
	}
	js, _ := json.Marshal(s)
	if !bytes.Contains(js, []byte(`"sessions":{"count":4,"turns":{"mean":2,"p50":2,"p90":3,"p99":3,"max":3},"continued_share":0.5}`)) {
		t.Errorf("JSON %s, want the sessions object", js)
	}
	var tab bytes.Buffer
	if err := s.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sessions ", " 4\n", "turns per session ", " 2.0 ", "rows continuing a session ", " 0.5000\n"} {
		if !strings.Contains(tab.String(), want) {
			t.Errorf("table:\n%s\nwant %q", tab.String(), want)
		}
	}

	// A trace of warm-up rows alone has sessions but no measured row to
	// continue one.
	s, _ = ComputeStats(&sliceReader{rows: rows[:1]}, SLO{})
	if _, err := json.Marshal(s); err != nil || s.Sessions == nil || s.Sessions.Count != 1 || s.Sessions.ContinuedShare != 0 {
		t.Errorf("warm-up rows only: sessions %+v, JSON error %v", s.Sessions, err)
	}

	// Without session ids there is nothing to say about sessions.
	for _, r := range rows {
		r.SessionID = ""
	}
	s, _ = ComputeStats(&sliceReader{rows: rows}, SLO{})
	tab.Reset()
	s.WriteTable(&tab)
	if js, _ := json.Marshal(s); s.Sessions != nil || bytes.Contains(js, []byte(`"sessions"`)) || strings.Contains(tab.String(), "session") {
		t.Errorf("trace without session ids: sessions %+v, table:\n%s", s.Sessions, tab.String())
	}
}
