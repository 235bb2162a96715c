package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// sessionRows is a conversation's two turns, the second due 10 ms after
// the first, and a row of another session due 15 ms in: each request
// takes the server's TTFT, longer than the gap.
func sessionRows() []*traces.Request {
	in := rows(3, 0, 30, 2)
	in[0].SessionID, in[0].Arrival = "a", 0
	in[1].SessionID, in[1].Arrival = "a", int64(10*time.Millisecond)
	in[2].SessionID, in[2].Arrival = "b", int64(15*time.Millisecond)
	return in
}

// With SessionWait a turn goes out only once the previous turn of its
// session has ended, and its scheduled send is when it went: the hold is
// not the client's lag. Another session's row keeps its schedule.
func TestSessionWaitHoldsTurnUntilPreviousEnds(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 60 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.SessionWait = true
	s, out := runRows(t, cfg, sessionRows())
	first, second, other := out[0], out[1], out[2]
	if second.ActualSend < first.LastToken {
		t.Errorf("turn 2 sent at %v, before turn 1 ended at %v", time.Duration(second.ActualSend), time.Duration(first.LastToken))
	}
	if second.ScheduledSend < first.LastToken || second.ActualSend-second.ScheduledSend > int64(10*time.Millisecond) {
		t.Errorf("turn 2 scheduled %v, sent %v: want the held send time, after turn 1's end %v",
			time.Duration(second.ScheduledSend), time.Duration(second.ActualSend), time.Duration(first.LastToken))
	}
	if other.ScheduledSend != int64(15*time.Millisecond) || other.ActualSend >= first.LastToken {
		t.Errorf("session b's row scheduled %v, sent %v: held behind session a's turn, which ended at %v",
			time.Duration(other.ScheduledSend), time.Duration(other.ActualSend), time.Duration(first.LastToken))
	}
	if s.SessionHeld != 1 || s.SessionHold.N != 1 || s.SessionHold.Max < 40*time.Millisecond || s.SessionHoldTotal != s.SessionHold.Max {
		t.Errorf("held %d, hold %+v, total %v: want the one turn held about 50 ms", s.SessionHeld, s.SessionHold, s.SessionHoldTotal)
	}
	if s.Lag.Max >= 10*time.Millisecond {
		t.Errorf("schedule lag max %v: the hold counts as lag", s.Lag.Max)
	}
	var b bytes.Buffer
	s.Print(&b)
	if !strings.Contains(b.String(), "session wait: 1 turn held") {
		t.Errorf("the summary does not say a turn was held:\n%s", b.String())
	}
}

// Without SessionWait every row keeps its schedule, turns of one
// session overlapping, and the summary says nothing of holds.
func TestSessionWaitOffSendsOnSchedule(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 60 * time.Millisecond})
	defer srv.Close()
	s, out := runRows(t, testConfig(srv), sessionRows())
	if out[1].ScheduledSend != int64(10*time.Millisecond) || out[1].ActualSend >= out[0].LastToken {
		t.Errorf("turn 2 scheduled %v, sent %v, turn 1 ended %v: want it sent on schedule",
			time.Duration(out[1].ScheduledSend), time.Duration(out[1].ActualSend), time.Duration(out[0].LastToken))
	}
	var b bytes.Buffer
	s.Print(&b)
	if s.SessionHeld != 0 || strings.Contains(b.String(), "session wait") {
		t.Errorf("held %d without SessionWait:\n%s", s.SessionHeld, b.String())
	}
}

// The concurrency cap and the hold compose: a held turn takes no slot
// while it waits, so another session's row goes in the slot its
// predecessor left.
func TestSessionWaitWithCap(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 60 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.SessionWait, cfg.Concurrency = true, 2
	_, out := runRows(t, cfg, sessionRows())
	if out[1].ActualSend < out[0].LastToken {
		t.Errorf("turn 2 sent at %v, before turn 1 ended at %v", time.Duration(out[1].ActualSend), time.Duration(out[0].LastToken))
	}
	if out[2].ActualSend >= out[0].LastToken {
		t.Errorf("session b's row sent at %v, after turn 1 ended at %v: the held turn took its slot",
			time.Duration(out[2].ActualSend), time.Duration(out[0].LastToken))
	}
}

// An interrupt while a turn is held ends the run: the held turn is not
// sent, and is counted so.
func TestSessionWaitInterruptedWhileHeld(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 300 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.SessionWait = true
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	w := &memWriter{}
	s, err := Run(ctx, cfg, &sliceReader{rows: sessionRows()}, w)
	if !errors.Is(err, context.DeadlineExceeded) || s == nil || !s.Interrupted {
		t.Fatalf("Run: %v, summary %+v: want it interrupted", err, s)
	}
	if s.NotSent != 1 || len(w.rows) != 2 {
		t.Errorf("not sent %d, written %d: want the held turn not sent, the two in flight written", s.NotSent, len(w.rows))
	}
}

// SessionWait holds turns against an open loop's schedule; closed-loop
// clients already wait for their previous request.
func TestSessionWaitClosedLoopRefused(t *testing.T) {
	cfg := testConfig(nil)
	cfg.BaseURL = "http://127.0.0.1:1/v1"
	cfg.Arrival, cfg.Concurrency, cfg.SessionWait = Closed, 2, true
	var fe *FieldError
	if err := cfg.Validate(); !errors.As(err, &fe) || fe.Field != "SessionWait" {
		t.Fatalf("Validate: %v, want an error naming SessionWait", err)
	}
}

// The settings file sets it, and the output's metadata records it.
func TestSessionWaitSettingAndMeta(t *testing.T) {
	cfg := DefaultConfig()
	if err := parseSettings([]byte(`{"session_wait": true}`), "s.json", &cfg); err != nil || !cfg.SessionWait {
		t.Fatalf("JSON: %v, SessionWait %v", err, cfg.SessionWait)
	}
	cfg = DefaultConfig()
	if err := parseSettings([]byte("session_wait = true\n"), "s.toml", &cfg); err != nil || !cfg.SessionWait {
		t.Fatalf("TOML: %v, SessionWait %v", err, cfg.SessionWait)
	}
	if got := OutputMeta(traces.Meta{}, cfg, 1).Extra["replay.session_wait"]; got != "true" {
		t.Errorf("replay.session_wait = %q, want true", got)
	}
}

// Every run of a repeated recording holds its turns afresh, a warm-up
// turn holding the measured turn after it as any turn does (its hold not
// counted), and the trace says the runs were made so.
func TestSessionWaitRepeatAndWarmup(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 60 * time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	in := sessionRows()
	in[0].Warmup = true
	cfg := testConfig(srv)
	cfg.SessionWait, cfg.Repeat = true, 2
	cfg.Trace = writeTrace(t, dir, "in.jsonl", in)
	cfg.Out = filepath.Join(dir, "out.parquet")
	sums, err := Record(t.Context(), cfg, nil)
	if err != nil || len(sums) != 2 {
		t.Fatalf("Record: %v, %d runs", err, len(sums))
	}
	for k := 1; k <= 2; k++ {
		meta, got, err := traces.ReadAll(RunPath(cfg.Out, k, 2))
		if err != nil {
			t.Fatal(err)
		}
		if got[1].ActualSend < got[0].LastToken || got[1].ScheduledSend < got[0].LastToken {
			t.Errorf("run %d: turn 2 scheduled %v, sent %v, before the warm-up turn ended at %v", k,
				time.Duration(got[1].ScheduledSend), time.Duration(got[1].ActualSend), time.Duration(got[0].LastToken))
		}
		if meta.Extra["replay.session_wait"] != "true" || sums[k-1].SessionHeld != 1 {
			t.Errorf("run %d: replay.session_wait %q, held %d: want true and the measured turn held", k,
				meta.Extra["replay.session_wait"], sums[k-1].SessionHeld)
		}
	}
}

// Sessions whose latest turn has ended are let go: a run of many short
// conversations keeps only those still in flight.
func TestSessionTurnsForgetEndedSessions(t *testing.T) {
	turns := newSessionTurns()
	for i := range 100_000 {
		prev, ended := turns.next(fmt.Sprint("s", i), time.Now())
		if prev != nil {
			t.Fatalf("session %d: a first turn waits for a previous one", i)
		}
		ended.end()
	}
	inFlight, _ := turns.next("open", time.Now())
	if inFlight != nil {
		t.Fatal("a new session's first turn waits for a previous one")
	}
	if n := len(turns.last); n > 4096 {
		t.Errorf("%d sessions kept after 100000 ended, want at most 4096", n)
	}
	if prev, _ := turns.next("open", time.Now()); prev == nil || prev.ended() {
		t.Error("the turn after an open one does not wait for it")
	}
}

// A turn the source trace marks failed is written unsent at its due time,
// as the simulator keeps it, and the next turn waits for the turn before
// it, not for it.
func TestSessionWaitSourceFailedTurnNotWaitedFor(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 60 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.SessionWait = true
	in := sessionRows()
	in[2].SessionID, in[2].Arrival = "a", int64(5*time.Millisecond)
	in[1], in[2] = in[2], in[1] // turn 1, the failed turn, turn 3
	in[1].SourceFailed = true
	_, out := runRows(t, cfg, in)
	first, failed, third := out[0], out[1], out[2]
	if failed.ScheduledSend != int64(5*time.Millisecond) || failed.ActualSend != traces.Missing {
		t.Errorf("failed turn scheduled %v, sent %v: want written unsent at 5ms",
			time.Duration(failed.ScheduledSend), time.Duration(failed.ActualSend))
	}
	if third.ScheduledSend < first.LastToken || third.ActualSend-third.ScheduledSend > int64(10*time.Millisecond) {
		t.Errorf("turn 3 scheduled %v, sent %v: want it held until turn 1 ended at %v",
			time.Duration(third.ScheduledSend), time.Duration(third.ActualSend), time.Duration(first.LastToken))
	}
}

// A turn frees its concurrency slot before it tells its session it has
// ended: the next turn, released then, must find the slot free, or it
// would count as a wait for the cap. Here the slot can be freed only once
// the test lets it, so a turn that signals first is caught.
func TestEndTurnFreesSlotBeforeSignalling(t *testing.T) {
	sem := make(chan struct{}, 1) // the slot's token is taken: endTurn blocks until it can free it
	ended := &turnEnd{done: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		endTurn(sem, ended)
	}()
	select {
	case <-ended.done:
		t.Fatal("the turn signalled its end before it freed its slot")
	case <-time.After(20 * time.Millisecond):
	}
	sem <- struct{}{} // endTurn's free goes through
	<-done
	if !ended.ended() {
		t.Error("the turn freed its slot but never signalled its end")
	}
}

// slowReader is a sliceReader that hands over the row at index slowAt
// only after delay: the send loop reaches it late.
type slowReader struct {
	sliceReader
	slowAt int
	delay  time.Duration
}

func (r *slowReader) Next() bool {
	if r.i == r.slowAt {
		time.Sleep(r.delay)
	}
	return r.sliceReader.Next()
}

// A turn whose previous turn ended after it was due, but before the send
// loop, running late, reached it, was held by its session from its due
// time to that end, as the simulator counts it: its scheduled send is the
// later of the two, and only the rest is schedule lag.
func TestSessionWaitLateLoopCountsHoldNotLag(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 20 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.SessionWait = true
	in := sessionRows()[:2] // turn 2 due at 10 ms, turn 1 ends after 20 ms
	s, out := runFrom(t, cfg, &slowReader{sliceReader: sliceReader{rows: in}, slowAt: 1, delay: 80 * time.Millisecond}, in)
	first, second := out[0], out[1]
	if second.ScheduledSend < first.LastToken || second.ScheduledSend > second.ActualSend {
		t.Errorf("turn 2 scheduled %v, sent %v: want scheduled at turn 1's end, after %v",
			time.Duration(second.ScheduledSend), time.Duration(second.ActualSend), time.Duration(first.LastToken))
	}
	if s.SessionHeld != 1 || s.SessionHoldTotal < 10*time.Millisecond {
		t.Errorf("held %d for %v: want turn 2 held from its due time to turn 1's end", s.SessionHeld, s.SessionHoldTotal)
	}
}

// A session whose latest turn ended after the turn now due is kept
// through a sweep: its next turn, which the send loop may reach late,
// was due before that end and must count the wait as a hold, which it
// can only if its predecessor's end is still known.
func TestSessionTurnsKeepSessionsEndedAfterDue(t *testing.T) {
	turns := newSessionTurns()
	due := time.Now()
	_, late := turns.next("late", due)
	late.at = due.Add(time.Hour) // as end() sets it, but after the rows below are due
	close(late.done)
	for i := range 2 * minSessionSweep {
		_, ended := turns.next(fmt.Sprint("s", i), time.Now())
		ended.end()
	}
	prev, _ := turns.next("late", time.Now())
	if prev != late {
		t.Fatal("a sweep dropped a session whose turn ended after the rows being sent were due")
	}
	if n := len(turns.last); n > minSessionSweep+2 {
		t.Errorf("%d sessions kept, want those that ended by the due time dropped", n)
	}
}
