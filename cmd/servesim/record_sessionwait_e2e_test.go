package main

import (
	"cmp"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// TestE2ESessionWait records six 3-turn sessions with --session-wait: the
// think time (10 ms mean) is far shorter than a reply (16–32 tokens), so
// most later turns fall due while the previous one is still generating and
// must be held until it ends, their scheduled_send moved to when they went.
func TestE2ESessionWait(t *testing.T) {
	url, model := engine(t)
	dir := t.TempDir()
	in := synth(t, dir, "--requests", "18", "--turns", "fixed:3", "--think-time", "0.01", "--arrival", "poisson",
		"--rate", "2", "--seed", "11", "--prompt", "uniform:16:48", "--output", "uniform:16:32")
	out := filepath.Join(dir, "out.parquet")
	if _, err := run(t, "record", "--trace", in, "--out", out, "--base-url", url, "--model", model,
		"--api-key-env", "SERVESIM_NO_KEY", "--arrival", "open", "--session-wait", "--timeout", "1m"); err != nil {
		t.Fatal(err)
	}
	meta, rows, err := traces.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := meta.Extra["replay.session_wait"]; got != "true" {
		t.Errorf("replay.session_wait = %q in the metadata, want true", got)
	}
	if len(rows) != 18 {
		t.Fatalf("%d rows, want 18", len(rows))
	}
	sessions := map[string][]*traces.Request{}
	for _, r := range rows {
		if !r.Succeeded() {
			t.Fatalf("request %s (session %q) failed: %q", r.ID, r.SessionID, r.Error)
		}
		if r.SessionID == "" {
			t.Fatalf("request %s has no session", r.ID)
		}
		sessions[r.SessionID] = append(sessions[r.SessionID], r)
	}
	held := 0
	for id, turns := range sessions {
		slices.SortStableFunc(turns, func(a, b *traces.Request) int { return cmp.Compare(a.Arrival, b.Arrival) })
		for i := 1; i < len(turns); i++ {
			prev, r := turns[i-1], turns[i]
			e2e, _ := prev.E2E()
			prevEnd := prev.ScheduledSend + e2e
			// At time scale 1 a turn that kept its schedule is due at its
			// arrival; a held one is due when its previous turn ended.
			if r.ScheduledSend != r.Arrival {
				held++
				if r.ScheduledSend < prevEnd {
					t.Errorf("session %s turn %d: held until %v, before its previous turn ended at %v",
						id, i+1, time.Duration(r.ScheduledSend), time.Duration(prevEnd))
				}
			}
			if r.ActualSend < prevEnd {
				t.Errorf("session %s turn %d: sent at %v, before its previous turn ended at %v",
					id, i+1, time.Duration(r.ActualSend), time.Duration(prevEnd))
			}
			if r.ScheduledSend < r.Arrival {
				t.Errorf("session %s turn %d: scheduled at %v, before its arrival %v",
					id, i+1, time.Duration(r.ScheduledSend), time.Duration(r.Arrival))
			}
		}
	}
	t.Logf("%d sessions, %d of %d later turns held", len(sessions), held, len(rows)-len(sessions))
	if held == 0 {
		t.Errorf("no turn was held: every later turn fell due after its previous one ended (think time too long for this engine?)")
	}
}
