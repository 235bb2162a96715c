package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// sessionTrace writes two turns of one session, the second due before
// the first can end, and a row of no session due at the same time.
func sessionTrace(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "sessions.parquet")
	w, err := traces.Create(src, traces.Meta{Source: "synthetic"})
	if err != nil {
		t.Fatal(err)
	}
	for i, session := range []string{"s1", "s1", ""} {
		var r traces.Request
		r.Reset()
		r.ID, r.SessionID, r.Arrival, r.PromptTokens, r.OutputTokens = []string{"a", "b", "c"}[i], session, int64(min(i, 1))*1e6, 200, 40
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return src
}

// --session-wait holds a turn until its previous turn ends and the gap
// after; rows of no session, and runs without the flag, keep arrivals.
func TestSimulateSessionWait(t *testing.T) {
	dir := t.TempDir()
	src := sessionTrace(t, dir)
	cfg := basePlan(t, dir, "cont.toml")
	held, plain := filepath.Join(dir, "held"), filepath.Join(dir, "plain")
	out, err := run(t, "simulate", "--trace", src, "--config", cfg, "--out", held, "--session-wait", "--closed-loop-gap", "2ms")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "session wait, 2ms turnaround") {
		t.Errorf("the step model line does not name the session wait:\n%s", out)
	}
	if _, err := run(t, "simulate", "--trace", src, "--config", cfg, "--out", plain); err != nil {
		t.Fatal(err)
	}
	meta, rows, err := traces.ReadAll(filepath.Join(held, "cont.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Extra["session_wait"] != "2ms" {
		t.Errorf("metadata: session_wait %q, want the turnaround, 2ms", meta.Extra["session_wait"])
	}
	a, b, c := rows[0], rows[1], rows[2]
	if a.ID != "a" || b.ID != "b" || c.ID != "c" {
		t.Fatalf("rows %s %s %s, want the input's order a b c", a.ID, b.ID, c.ID)
	}
	if b.Arrival != 1e6 || b.ScheduledSend != a.LastToken || b.StartTime < a.LastToken+2e6 {
		t.Errorf("b: arrival %d sent %d started %d; a ended %d: want b sent then and started 2 ms after", b.Arrival, b.ScheduledSend, b.StartTime, a.LastToken)
	}
	if c.ScheduledSend != 1e6 || c.StartTime >= a.LastToken {
		t.Errorf("c: sent %d started %d: want it not held (a ended %d)", c.ScheduledSend, c.StartTime, a.LastToken)
	}
	_, plainRows, err := traces.ReadAll(filepath.Join(plain, "cont.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := meta.Extra["closed_loop"]; ok {
		t.Errorf("closed_loop set on a session-waiting run: %v", meta.Extra)
	}
	if p := plainRows[1]; p.ScheduledSend != 1e6 || p.StartTime >= a.LastToken {
		t.Errorf("without --session-wait b was held: sent %d started %d", p.ScheduledSend, p.StartTime)
	}
}
