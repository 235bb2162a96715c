package sim

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// runSessionWait runs reqs through cfg with sessions' turns held, failing
// the test on an error, and returns the summary and the rows.
func runSessionWait(t testing.TB, cfg Config, wait SessionWait, reqs []*traces.Request) (*Summary, *memWriter) {
	t.Helper()
	w := &memWriter{}
	sum, err := RunSessionWait(t.Context(), cfg, wait, newSliceReader(reqs), w)
	if err != nil {
		t.Fatalf("RunSessionWait: %v", err)
	}
	return sum, w
}

// inSession is r as a turn of session id.
func inSession(r *traces.Request, id string) *traces.Request {
	r.SessionID = id
	return r
}

// A turn that arrives before its previous turn ends goes out at that end
// and reaches the engine one gap later; another session's row is not held.
func TestSessionWaitHandComputed(t *testing.T) {
	cfg := serialTestConfig(t) // 42 ms a request: first token after 20 ms
	reqs := []*traces.Request{
		inSession(req("a", 0, 10, 3), "s1"),
		inSession(req("c", 10, 10, 3), "s1"),   // a ends at 42 ms: issued then, arrives at 43 ms
		inSession(req("b", 42.5, 10, 3), "s2"), // not held: ahead of c
		req("d", 43, 10, 3),                    // no session: not held either
	}
	sum, w := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
	for i, want := range []struct {
		id                          string
		arrival, sched, first, last float64 // ms
	}{
		{"a", 0, 0, 20, 42},
		{"c", 10, 42, 104.5, 126.5},
		{"b", 42.5, 42.5, 62.5, 84.5},
		{"d", 43, 43, 146.5, 168.5},
	} {
		r := w.rows[i]
		ms := func(v float64) int64 { return int64(v * 1e6) }
		if r.ID != want.id || r.Arrival != ms(want.arrival) || r.ScheduledSend != ms(want.sched) ||
			r.FirstToken != ms(want.first) || r.LastToken != ms(want.last) {
			t.Errorf("row %d: %s arrival %d sent %d first %d last %d, want %s %v %v %v %v ms",
				i, r.ID, r.Arrival, r.ScheduledSend, r.FirstToken, r.LastToken, want.id, want.arrival, want.sched, want.first, want.last)
		}
	}
	// c's TTFT runs from its issue at 42 ms; d waited behind c.
	if wantTTFT := (20 + 62.5 + 20 + 103.5) / 4e3; sum.Completed != 4 || absDiff(int64(sum.TTFT.Mean*1e9), int64(wantTTFT*1e9)) > 1 {
		t.Errorf("summary: completed %d, TTFT mean %v, want 4, %v", sum.Completed, sum.TTFT.Mean, wantTTFT)
	}
}

// A refused turn releases the next one as it arrives.
func TestSessionWaitRejectedTurnReleasesNext(t *testing.T) {
	cfg := serialTestConfig(t)
	cfg.MaxModelLen = 100
	reqs := []*traces.Request{
		inSession(req("long", 5, 500, 3), "s1"),
		inSession(req("next", 5, 10, 3), "s1"),
	}
	_, w := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
	long, next := w.byID["long"], w.byID["next"]
	if long.Error == "" {
		t.Fatalf("long: not refused: %+v", *long)
	}
	// Refused at 5 ms, the time of next's own arrival: not held.
	if next.ScheduledSend != 5e6 || next.FirstToken != 25e6 {
		t.Errorf("next: sent %d first %d, want 5 ms, 25 ms", next.ScheduledSend, next.FirstToken)
	}
}

// Event skipping stays exact while turns wait for their sessions.
func TestSessionWaitSkipMatchesNoSkip(t *testing.T) {
	for _, blocks := range []int{40, 4000} {
		cfg := DefaultConfig()
		cfg.Policy.MaxNumSeqs = 4
		cfg.TotalBlocks = blocks
		cfg.Step = realTimer
		cfg.CheckInvariants = true
		var reqs []*traces.Request
		for i := range 60 {
			r := req(fmt.Sprint(i), float64(i*7), int32(16+(i*53)%200), int32(1+(i*31)%90))
			if i%5 != 0 {
				r.SessionID = fmt.Sprint("s", i%4)
			}
			reqs = append(reqs, r)
		}
		s1, w1 := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
		cfg.NoSkip = true
		s2, w2 := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
		held := 0
		for i, a := range w1.rows {
			b := w2.rows[i]
			if a.ID != fmt.Sprint(i) || b.ID != a.ID || absDiff(a.ScheduledSend, b.ScheduledSend) > 1000 ||
				absDiff(a.FirstToken, b.FirstToken) > 1000 || absDiff(a.LastToken, b.LastToken) > 1000 || a.Preemptions != b.Preemptions {
				t.Fatalf("blocks %d: row %d: skip %+v\nno-skip %+v", blocks, i, *a, *b)
			}
			if a.ScheduledSend > a.Arrival {
				held++
			}
		}
		if s1.Completed != 60 || s2.Completed != 60 || s1.Stretches == 0 || held == 0 {
			t.Errorf("blocks %d: completed %d/%d, %d stretches, %d held", blocks, s1.Completed, s2.Completed, s1.Stretches, held)
		}
	}
}

// Without sessions nothing is held: the run is Run's.
func TestSessionWaitWithoutSessionsIsRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TotalBlocks = 1000
	cfg.Step = realTimer
	var reqs []*traces.Request
	for i := range 30 {
		reqs = append(reqs, req(fmt.Sprint(i), float64(i*9), int32(20+13*i), int32(5+7*i)))
	}
	_, ws := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
	_, wr := mustRun(t, cfg, reqs)
	if !bytes.Equal(ws.bytes(), wr.bytes()) {
		t.Errorf("session waiting without sessions differs from Run:\n%s\nvs\n%s", ws.bytes(), wr.bytes())
	}
}

// A run stopped by a static OOM writes a row for every request, a turn
// held behind one the engine never served included.
func TestSessionWaitOOMWritesHeldTurns(t *testing.T) {
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}, 10, false)
	reqs := []*traces.Request{
		req("A", 0, 10, 2), req("B", 0, 10, 2),
		inSession(req("C", 1000, 100, 20), "s"), req("D", 1000, 100, 20), // {C, D} does not fit
		inSession(req("X", 1000, 10, 2), "s"), req("F", 3000, 10, 2),
	}
	w := &memWriter{}
	sum, err := RunSessionWait(t.Context(), cfg, SessionWait{IssueGap: 1e6}, newSliceReader(reqs), w)
	var oom *OOMError
	if !errors.As(err, &oom) {
		t.Fatalf("err = %v, want *OOMError", err)
	}
	inputOrder(t, w, []string{"A", "B", "C", "D", "X", "F"})
	for _, r := range w.rows[2:] {
		if !strings.HasPrefix(r.Error, "not run: out of KV memory") || r.LastToken != traces.Missing {
			t.Errorf("%s: %+v, want a row marked not run", r.ID, *r)
		}
	}
	if x := w.byID["X"]; x.Arrival != 1000e6 || x.ScheduledSend != 1000e6 {
		t.Errorf("X: arrival %d sent %d, want both at the stop, 1 s", x.Arrival, x.ScheduledSend)
	}
	if sum.Requests != 6 || sum.Completed != 2 {
		t.Errorf("summary: %d requests, %d completed, want 6, 2", sum.Requests, sum.Completed)
	}
}

// A static policy of either kind that runs out of KV memory under session
// waiting ends the run with an *OOMError and writes every row, those it
// did not serve marked not run.
func TestSessionWaitStaticOOMWritesEveryRow(t *testing.T) {
	for _, p := range []PolicyConfig{
		{Name: Fixed, BatchSize: 2, MaxWaitMs: 100},
		{Name: TokenBudget, TokenBudget: 240, MaxWaitMs: 100}, // {C, D} reserves 240 tokens, 16 blocks
	} {
		t.Run(p.Name, func(t *testing.T) {
			reqs := oomTrace()
			inSession(reqs[0], "s")
			inSession(reqs[2], "s")
			inSession(reqs[4], "s")
			w := &memWriter{}
			sum, err := RunSessionWait(t.Context(), testConfig(p, 10, false), SessionWait{IssueGap: 1e6}, newSliceReader(reqs), w)
			checkOOMRows(t, w, err, 2)
			if sum.Requests != 6 || sum.Completed != 2 {
				t.Errorf("summary: %d requests, %d completed, want 6, 2", sum.Requests, sum.Completed)
			}
		})
	}
}

// A turn the source trace marks failed is never sent live: it keeps its
// arrival, and the next turn waits for the turn before it, not for it.
func TestSessionWaitSourceFailedTurnNotInChain(t *testing.T) {
	cfg := serialTestConfig(t) // 42 ms a request
	failed := inSession(req("failed", 5, 10, 3), "s1")
	failed.SourceFailed = true
	reqs := []*traces.Request{
		inSession(req("a", 0, 10, 3), "s1"),
		failed,
		inSession(req("c", 10, 10, 3), "s1"), // a ends at 42 ms: issued then
	}
	_, w := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
	if f := w.byID["failed"]; f.Error == "" || f.ScheduledSend != 5e6 {
		t.Errorf("failed: error %q, sent %d, want refused, sent at its arrival (5 ms)", f.Error, f.ScheduledSend)
	}
	if c := w.byID["c"]; c.ScheduledSend != 42e6 || c.FirstToken != 63e6 {
		t.Errorf("c: sent %d first %d, want 42 ms (a's end), 63 ms", c.ScheduledSend, c.FirstToken)
	}
}

// A held turn's latencies start at its issue, before it reaches the
// engine: a row of another session that reaches the engine in between
// must not open the window after that issue.
func TestSessionWaitWindowOpensAtTheEarliestIssue(t *testing.T) {
	cfg := serialTestConfig(t)                  // 42 ms a request
	warm := inSession(req("w", 0, 10, 3), "s1") // ends at 42 ms
	warm.Warmup = true
	reqs := []*traces.Request{
		warm,
		inSession(req("c", 10, 10, 3), "s1"), // issued at 42 ms, arrives at 52 ms
		req("d", 45, 10, 3),                  // reaches the engine first
	}
	sum, w := runSessionWait(t, cfg, SessionWait{IssueGap: 10e6}, reqs)
	for _, r := range w.rows {
		if !r.Warmup && r.ScheduledSend < int64(sum.FirstArrival*1e9) {
			t.Errorf("%s issued at %d ns, before the window opens at %v s", r.ID, r.ScheduledSend, sum.FirstArrival)
		}
	}
	first, last, ok := liveWindow(w.rows).Bounds()
	if !ok || sum.FirstArrival != float64(first)/1e9 || sum.Makespan != float64(last-first)/1e9 {
		t.Errorf("window from %v s, %v s long; the rows' live window is [%d, %d] ns (ok %v)",
			sum.FirstArrival, sum.Makespan, first, last, ok)
	}
}

// A row nothing holds (no session, a session's first turn, or a turn whose
// previous one ended before it arrived) is handed over as Run hands it,
// without a copy of its own.
func TestSessionWaitUnheldRowsAllocateAsRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TotalBlocks = 1000
	cfg.Step = realTimer
	var reqs []*traces.Request
	for i := range 300 {
		r := req(fmt.Sprint(i), float64(i*50), 40, 5, uint64(i), uint64(i+1))
		if i%3 != 0 {
			r.SessionID = fmt.Sprint("s", i%7) // each turn ends long before the next of its session
		}
		reqs = append(reqs, r)
	}
	allocs := func(run func(in traces.Reader) error) float64 {
		return testing.AllocsPerRun(5, func() {
			if err := run(newSliceReader(reqs)); err != nil {
				t.Fatal(err)
			}
		})
	}
	sw := allocs(func(in traces.Reader) error {
		_, err := RunSessionWait(t.Context(), cfg, SessionWait{IssueGap: 1e6}, in, nil)
		return err
	})
	plain := allocs(func(in traces.Reader) error {
		_, err := Run(t.Context(), cfg, in, nil)
		return err
	})
	if sw > plain+float64(len(reqs))/10 {
		t.Errorf("RunSessionWait: %v allocations for %d unheld rows, Run %v", sw, len(reqs), plain)
	}
}

// A session whose last turn ends in a step that runs past the next row's
// arrival is dropped once a later row arrives after that end: the waiter
// holds only the sessions that may still hold a turn.
func TestSessionWaitDropsEndedSessions(t *testing.T) {
	cfg := serialTestConfig(t)
	reqs := []*traces.Request{
		inSession(req("a", 0, 10, 3), "s1"),  // its last step runs from 31 to 42 ms
		inSession(req("b", 35, 10, 3), "s2"), // arrives during it
		req("z", 1000, 10, 3),                // after every turn ended
	}
	e := newEngine(&cfg, traces.Meta{}, newRowOrder(nil))
	w := newSessionWaiter(e, newSliceReader(reqs), 0)
	if err := e.runSessions(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	if len(w.sessions) != 0 {
		for id, s := range w.sessions {
			t.Errorf("session %s still held (ended at %d ns, open %v) after the input ended at %d ns", id, s.endAt, s.open, w.a.last)
		}
	}
}

// A row that arrived during the step that ended a turn reached the engine
// before that turn's next one was issued: the window opens at its arrival,
// not at the later issue.
func TestSessionWaitWindowOpensAtAnArrivalDuringTheEndingStep(t *testing.T) {
	cfg := serialTestConfig(t)
	warm := inSession(req("w", 0, 10, 3), "s1") // its last step runs from 31 to 42 ms
	warm.Warmup = true
	reqs := []*traces.Request{
		warm,
		inSession(req("c", 10, 10, 3), "s1"), // issued at 42 ms
		req("d", 35, 10, 3),                  // arrives during w's last step
	}
	sum, w := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
	if d := w.byID["d"]; sum.FirstArrival*1e9 != float64(d.ScheduledSend) {
		t.Errorf("window opens at %v s, want at d's arrival, %d ns", sum.FirstArrival, d.ScheduledSend)
	}
	first, last, ok := liveWindow(w.rows).Bounds()
	if !ok || sum.FirstArrival != float64(first)/1e9 || sum.Makespan != float64(last-first)/1e9 {
		t.Errorf("window from %v s, %v s long; the rows' live window is [%d, %d] ns (ok %v)",
			sum.FirstArrival, sum.Makespan, first, last, ok)
	}
}

// A turn read once the engine ran its previous turn's last step (a row
// arriving in that step made it run), followed in that step by a row of no
// session: the row reached the engine before the turn was issued at the
// step's end, so the window opens at its arrival.
func TestSessionWaitWindowOpensAtAnArrivalBehindAHeldTurn(t *testing.T) {
	cfg := serialTestConfig(t)
	warm := inSession(req("w", 0, 10, 3), "s1") // its last step runs from 31 to 42 ms
	warm.Warmup = true
	early := req("x", 33, 10, 3) // the engine runs w's last step to take it
	early.Warmup = true
	reqs := []*traces.Request{
		warm,
		early,
		inSession(req("c", 35, 10, 3), "s1"), // held, issued at 42 ms
		req("d", 38, 10, 3),                  // arrives after c, during w's last step
	}
	sum, w := runSessionWait(t, cfg, SessionWait{IssueGap: 1e6}, reqs)
	if d := w.byID["d"]; sum.FirstArrival*1e9 != float64(d.ScheduledSend) {
		t.Errorf("window opens at %v s, want at d's arrival, %d ns", sum.FirstArrival, d.ScheduledSend)
	}
	first, last, ok := liveWindow(w.rows).Bounds()
	if !ok || sum.FirstArrival != float64(first)/1e9 || sum.Makespan != float64(last-first)/1e9 {
		t.Errorf("window from %v s, %v s long; the rows' live window is [%d, %d] ns (ok %v)",
			sum.FirstArrival, sum.Makespan, first, last, ok)
	}
}
