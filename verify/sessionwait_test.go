package verify

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// writeSessionTrace writes two sessions of four turns each, interleaved
// 1 ms apart: every later turn arrives long before the stub (or the
// simulator) has answered the previous one, so waiting for it holds it.
func writeSessionTrace(t *testing.T, dir string) string {
	t.Helper()
	var reqs []*traces.Request
	for i := range 8 {
		var r traces.Request
		r.Reset()
		r.ID, r.SessionID = fmt.Sprintf("r%03d", i), fmt.Sprintf("s%d", i%2)
		r.Arrival = int64(i) * int64(time.Millisecond)
		r.PromptTokens, r.OutputTokens = 60, 12
		reqs = append(reqs, &r)
	}
	path := filepath.Join(dir, "sessions.parquet")
	if err := traces.WriteAll(path, traces.Meta{Source: "test"}, reqs); err != nil {
		t.Fatal(err)
	}
	return path
}

// held counts the rows sent later than their arrival: the turns held for
// their session's previous turn.
func held(t *testing.T, path string) (traces.Meta, int) {
	t.Helper()
	meta, rows, err := traces.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.ScheduledSend > r.Arrival {
			n++
		}
	}
	return meta, n
}

// With SessionWait, the live replay holds each session's turns until
// the previous one ended and the prediction holds them the same way
// (sim.RunSessionWait with the given turnaround); the result says so.
func TestRunSessionWaitHoldsTurnsLiveAndPredicted(t *testing.T) {
	dir := t.TempDir()
	opt := Options{
		Candidates: candidates(4), Trace: writeSessionTrace(t, dir), Replay: stubReplay(t),
		SessionWait: &sim.SessionWait{IssueGap: 2 * time.Millisecond},
		Out:         filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	}
	res, err := Run(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusOK {
		t.Fatalf("status %s: %s", c.Status, c.Detail)
	}
	if res.SessionWait != "2ms" {
		t.Errorf("result session_wait %q, want the turnaround 2ms", res.SessionWait)
	}
	meta, n := held(t, c.Trace)
	if meta.Extra["replay.session_wait"] != "true" || n != 6 {
		t.Errorf("measured: replay.session_wait %q, %d turns held; want true, 6", meta.Extra["replay.session_wait"], n)
	}
	meta, n = held(t, c.SimTrace)
	if meta.Extra["session_wait"] != "2ms" || n != 6 {
		t.Errorf("predicted: session_wait %q, %d turns held; want 2ms, 6", meta.Extra["session_wait"], n)
	}
}

// A live replay told to wait for sessions alone would be compared with
// a prediction that sends every turn at its arrival.
func TestValidateRefusesSessionWaitOnTheLiveSideAlone(t *testing.T) {
	opt := Options{Replay: stubReplay(t), Tolerances: DefaultTolerances()}
	opt.Replay.SessionWait = true
	if err := opt.Validate(); err == nil {
		t.Error("Replay.SessionWait without Options.SessionWait was accepted")
	}
	opt.Replay.SessionWait = false
	opt.SessionWait = &sim.SessionWait{IssueGap: 2 * time.Minute}
	if err := opt.Validate(); err == nil {
		t.Error("a session-wait turnaround past sim.MaxIssueGap was accepted")
	}
}
