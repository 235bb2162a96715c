package sim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// One client: each request goes out when the previous one completes.
func TestClosedLoopOneClientHandComputed(t *testing.T) {
	cfg := serialTestConfig(t)
	// Arrivals out of order and far apart: ignored.
	reqs := []*traces.Request{req("a", 500, 10, 3), req("b", 0, 10, 3), req("c", 9000, 10, 3)}
	sum, w := runClosed(t, cfg, 1, reqs)
	// Prefill 10 ms + 10 × 1 ms = 20 ms; two decode steps of 10 + 1 ms: 42 ms per request.
	for i, id := range []string{"a", "b", "c"} {
		r := w.byID[id]
		wantArr := int64(i) * 42e6
		if r.Arrival != wantArr || r.ScheduledSend != wantArr || r.FirstToken != wantArr+20e6 || r.LastToken != wantArr+42e6 {
			t.Errorf("%s: arrival %d first %d last %d, want %d, +20 ms, +42 ms", id, r.Arrival, r.FirstToken, r.LastToken, wantArr)
		}
	}
	if sum.Completed != 3 || sum.Makespan != 0.126 || sum.TTFT.Mean != 0.02 {
		t.Errorf("summary: completed %d makespan %v TTFT mean %v", sum.Completed, sum.Makespan, sum.TTFT.Mean)
	}
}

// With at least as many clients as requests, a closed loop is an open loop
// with every request arriving at 0.
func TestClosedLoopManyClientsIsBurst(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TotalBlocks = 1000
	cfg.Step = realTimer
	var closed, burst []*traces.Request
	for i := range 12 {
		r := req(fmt.Sprint(i), float64(i*37), int32(20+13*i), int32(5+7*i))
		closed = append(closed, r)
		b := r.Clone()
		b.Arrival = 0
		burst = append(burst, b)
	}
	_, wc := runClosed(t, cfg, 12, closed)
	_, wb := mustRun(t, cfg, burst)
	if !bytes.Equal(wc.bytes(), wb.bytes()) {
		t.Errorf("closed loop with 12 clients differs from a burst at 0:\n%s\nvs\n%s", wc.bytes(), wb.bytes())
	}
}

// Event skipping stays exact in a closed loop, with preemptions too.
func TestClosedLoopSkipMatchesNoSkip(t *testing.T) {
	for _, blocks := range []int{40, 4000} {
		cfg := DefaultConfig()
		cfg.Policy.MaxNumSeqs = 4
		cfg.TotalBlocks = blocks
		cfg.Step = realTimer
		cfg.CheckInvariants = true
		var reqs []*traces.Request
		for i := range 60 {
			reqs = append(reqs, req(fmt.Sprint(i), 0, int32(16+(i*53)%200), int32(1+(i*31)%90)))
		}
		s1, w1 := runClosed(t, cfg, 4, reqs)
		cfg.NoSkip = true
		s2, w2 := runClosed(t, cfg, 4, reqs)
		// Equal up to float rounding of the stretch sums (as for Run).
		for _, a := range w1.rows {
			b := w2.byID[a.ID]
			if b == nil || absDiff(a.Arrival, b.Arrival) > 1000 || absDiff(a.FirstToken, b.FirstToken) > 1000 ||
				absDiff(a.LastToken, b.LastToken) > 1000 || a.Preemptions != b.Preemptions {
				t.Fatalf("blocks %d: request %s: skip %+v\nno-skip %+v", blocks, a.ID, *a, b)
			}
		}
		if s1.Completed != 60 || s2.Completed != 60 || s1.Stretches == 0 {
			t.Errorf("blocks %d: completed %d/%d, %d stretches", blocks, s1.Completed, s2.Completed, s1.Stretches)
		}
		if blocks == 40 && s1.Preemptions == 0 {
			t.Errorf("blocks 40: no preemption; the test does not exercise it")
		}
		// Never more than 4 requests in flight: each arrival is some completion.
		ends := map[int64]int{0: 4}
		for _, r := range w1.rows {
			ends[r.LastToken]++
		}
		for _, r := range w1.rows {
			if ends[r.Arrival] == 0 {
				t.Fatalf("blocks %d: request %s arrives at %d ns, when nothing completed", blocks, r.ID, r.Arrival)
			}
			ends[r.Arrival]--
		}
	}
}

// A rejected request frees its client when it arrives: a decode stretch
// no arrival could join must still stop there, or the client's next
// request is issued late.
func TestClosedLoopRejectionSkipMatchesNoSkip(t *testing.T) {
	reqs := []*traces.Request{
		req("r0", 0, 10, 100),  // runs alone (MaxNumSeqs 1), decoding for about 1 s
		req("r1", 0, 10, 10),   // waits behind r0: the stretch watches no arrival
		req("r2", 0, 10, 5000), // never fits: rejected when it arrives
		req("r3", 0, 10, 10),   // issued when r2's client is freed
	}
	arrival := map[bool]int64{}
	for _, noSkip := range []bool{true, false} {
		cfg := Config{Policy: PolicyConfig{Name: Continuous, MaxNumSeqs: 1, MaxNumBatchedTokens: 64, ChunkedPrefill: true},
			BlockSize: 16, TotalBlocks: 64, Step: Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3}, Devices: 1, NoSkip: noSkip}
		_, w := runClosedLoop(t, cfg, ClosedLoop{Clients: 3, IssueGap: 50 * time.Millisecond}, reqs)
		if w.byID["r2"].Error == "" {
			t.Fatal("r2 was not rejected")
		}
		arrival[noSkip] = w.byID["r3"].Arrival
	}
	if arrival[true] != arrival[false] {
		t.Errorf("r3 issued at %.4f s stepping, %.4f s skipping", float64(arrival[true])/1e9, float64(arrival[false])/1e9)
	}
}

func TestClosedLoopErrors(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TotalBlocks = 10
	cfg.Step = testTimer
	if _, err := RunClosedLoop(t.Context(), cfg, ClosedLoop{}, newSliceReader(nil), nil); err == nil {
		t.Error("0 clients: no error")
	}
	if _, err := RunClosedLoop(t.Context(), cfg, ClosedLoop{Clients: 1, IssueGap: -1}, newSliceReader(nil), nil); err == nil {
		t.Error("negative issue gap: no error")
	}
	// Far beyond a client's turnaround: issue times summed from it wrapped
	// past int64 into negative arrivals.
	for _, gap := range []time.Duration{1000 * time.Hour, time.Duration(1 << 62)} {
		if _, err := RunClosedLoop(t.Context(), cfg, ClosedLoop{Clients: 1, IssueGap: gap}, newSliceReader(nil), nil); err == nil ||
			!strings.Contains(err.Error(), "issue gap = "+gap.String()) || !strings.Contains(err.Error(), "want in [0, 1m0s]") {
			t.Errorf("issue gap %v: err = %v, want it refused naming the gap and the range", gap, err)
		}
	}
	// A request that can never fit is rejected and frees its client.
	reqs := []*traces.Request{req("big", 0, 1000, 10), req("ok", 0, 10, 2)}
	sum, w := runClosed(t, cfg, 1, reqs)
	if sum.Rejected != 1 || sum.Completed != 1 || w.byID["ok"].Arrival != 0 {
		t.Errorf("rejected %d completed %d, ok arrived at %d", sum.Rejected, sum.Completed, w.byID["ok"].Arrival)
	}
}

// Two clients issuing at once reach the engine 1 and 2 ms later: the
// first request reaches the idle engine alone and its prefill step runs
// without the second, which joins the next step; from then on the clients
// stay out of step, and each one's prefill stalls the other's decoding, as
// live. A request issued when another ends reaches the engine after the
// step that starts then.
func TestClosedLoopIssueGapDesynchronises(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TotalBlocks = 1000
	cfg.Step = testTimer // 10 ms + 1 ms per prefill token + 1 ms per decode seq
	reqs := []*traces.Request{req("a", 0, 10, 3), req("b", 0, 10, 3), req("c", 0, 10, 3), req("d", 0, 10, 3)}
	_, w := runClosedLoop(t, cfg, ClosedLoop{Clients: 2, IssueGap: time.Millisecond}, reqs)
	a, b := w.byID["a"], w.byID["b"]
	// a: prefill alone, 1–21 ms. b arrives at 2 ms and prefills with a's
	// first decode: 21–42 ms (10 + 10 + 1).
	if a.Arrival != 1e6 || b.Arrival != 2e6 || a.FirstToken != 21e6 || b.FirstToken != 42e6 {
		t.Errorf("a arrives %d first %d, b arrives %d first %d (ns)", a.Arrival, a.FirstToken, b.Arrival, b.FirstToken)
	}
	// Both decode 42–54 ms and a ends; c, issued then, arrives at 55 ms,
	// after b's last decode step began (54–65); its prefill runs 65–85.
	if c := w.byID["c"]; c.Arrival != 55e6 || c.FirstToken != 85e6 {
		t.Errorf("c arrives %d first %d (ns), want 55 and 85 ms", c.Arrival, c.FirstToken)
	}
	// Together, both would have had their first token at 30 ms.
	_, w = runClosedLoop(t, cfg, ClosedLoop{Clients: 2}, reqs)
	if r := w.rows[0]; r.FirstToken != 30e6 {
		t.Errorf("no gap: first token at %d ns, want 30 ms", r.FirstToken)
	}
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// A rejected request frees its client when it arrives, not when the step
// under way ends: the client's next request goes out at once.
func TestClosedLoopRejectionFreesClientAtArrival(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TotalBlocks = 10
	cfg.Step = testTimer // 10 ms + 1 ms per prefill token + 1 ms per decode seq
	reqs := []*traces.Request{req("a", 0, 10, 3), req("big", 0, 1000, 10), req("c", 0, 10, 3)}
	for _, noSkip := range []bool{true, false} {
		cfg.NoSkip = noSkip
		_, w := runClosedLoop(t, cfg, ClosedLoop{Clients: 2, IssueGap: time.Millisecond}, reqs)
		// a prefills 1–21 ms; big arrives at 2 ms and is refused then, so
		// c is issued at 2 ms and arrives at 3 ms (not 1 ms after a's
		// prefill step ends), to join a's first decode step at 21 ms.
		if big := w.byID["big"]; big.Error == "" || big.Arrival != 2e6 {
			t.Fatalf("noskip %v: big arrived at %d ns, error %q: want rejected at 2 ms", noSkip, big.Arrival, big.Error)
		}
		if c := w.byID["c"]; c.Arrival != 3e6 || c.FirstToken != 42e6 {
			t.Errorf("noskip %v: c arrives %d first %d (ns), want 3 and 42 ms", noSkip, c.Arrival, c.FirstToken)
		}
	}
}
