package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

const ms = int64(1e6)

// want is one request's expected times in ms (-1: Missing).
type want struct {
	id                 string
	start, first, last int64
}

func checkTimes(t *testing.T, w *memWriter, wants []want) {
	t.Helper()
	for _, x := range wants {
		r := w.byID[x.id]
		if r == nil {
			t.Errorf("request %s: no row", x.id)
			continue
		}
		got := [3]int64{r.StartTime, r.FirstToken, r.LastToken}
		exp := [3]int64{x.start * ms, x.first * ms, x.last * ms}
		if got != exp {
			t.Errorf("request %s: start/first/last = %v ns, want %v", x.id, got, exp)
		}
	}
}

// bothModes runs f with event skipping on and off.
func bothModes[T interface{ Run(string, func(T)) bool }](t T, f func(t T, noSkip bool)) {
	for _, noSkip := range []bool{false, true} {
		name := "skip"
		if noSkip {
			name = "noskip"
		}
		t.Run(name, func(t T) { f(t, noSkip) })
	}
}

func testConfig(p PolicyConfig, blocks int, noSkip bool) Config {
	return Config{Policy: p, BlockSize: 16, TotalBlocks: blocks, Step: testTimer, Devices: 1, NoSkip: noSkip, CheckInvariants: true}
}

// testTimer: a step takes 10 ms + 1 ms per prefill token + 1 ms per decode
// sequence. A lone request with prompt P and output O takes 10+P ms to its
// first token and 11 ms per further token.

func TestSerialQueueIsPredecessorsRemainingService(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		reqs := []*traces.Request{
			req("A", 0, 10, 3),  // service 20 + 2·11 = 42
			req("B", 0, 20, 2),  // service 30 + 11 = 41
			req("C", 50, 5, 1),  // service 15; arrives while B runs, B has 83−50 = 33 ms left
			req("D", 200, 5, 1), // device idle: no queue
		}
		sum, w := mustRun(t, testConfig(policy(t, Serial), 100, noSkip), reqs)
		checkTimes(t, w, []want{{"A", 0, 20, 42}, {"B", 42, 72, 83}, {"C", 83, 98, 98}, {"D", 200, 215, 215}})
		if q, _ := w.byID["C"].QueueTime(); q != 33*ms {
			t.Errorf("C queue = %d ns, want 33 ms", q)
		}
		if sum.Completed != 4 || sum.Queue.Max != 0.042 {
			t.Errorf("completed %d, max queue %v", sum.Completed, sum.Queue.Max)
		}
	})
}

func TestContinuousArrivalJoinsNextStep(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		reqs := []*traces.Request{
			req("A", 0, 10, 10),
			req("B", 25, 10, 2), // arrives during A's first decode step (20→31 ms)
		}
		_, w := mustRun(t, testConfig(policy(t, Continuous), 100, noSkip), reqs)
		// 0→20 prefill A; 20→31 decode A; 31→52 prefill B + decode A;
		// 52→64 decode A, B (B done); then A alone, 11 ms per token.
		checkTimes(t, w, []want{{"A", 0, 20, 64 + 6*11}, {"B", 31, 52, 64}})
	})
}

// With Cq, the PostPrefillSteps steps without prompt tokens that follow a
// step with some cost Cq more; the step with the prompt and later ones do
// not.
func TestStepsAfterAPromptCostCq(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		timer := testTimer
		timer.Cq = 0.005
		cfg.Step = timer
		reqs := []*traces.Request{
			req("A", 0, 10, 10),
			req("B", 25, 10, 2), // its prompt joins A's decode at 31 ms
		}
		_, w := mustRun(t, cfg, reqs)
		// 0→20 prefill A; 20→36 decode A (+5); 36→57 prefill B + decode A
		// (no charge: a prompt step); 57→74 decode A, B (+5, B done);
		// 74→90, 90→106 decode A (+5 each); then 11 ms a token, A's last
		// four.
		checkTimes(t, w, []want{{"A", 0, 20, 106 + 4*11}, {"B", 36, 57, 74}})
	})
}

// With an admission delay, a request arriving at a busy engine reaches its
// scheduler that long after arriving, even when the engine goes idle
// meanwhile; one arriving at an idle engine starts at once.
func TestAdmissionDelayWhenBusy(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		timer := testTimer
		timer.Admit.Delay = 0.030
		cfg.Step = timer
		reqs := []*traces.Request{
			req("A", 0, 10, 10),
			req("B", 25, 10, 2),  // busy: reaches the scheduler at 55, during A's step 53→64
			req("C", 200, 10, 1), // idle: A is done at 130
			req("D", 205, 10, 1), // busy (C's prefill, 200→220): ready at 235, C long done
		}
		_, w := mustRun(t, cfg, reqs)
		// 0→20 prefill A; 20→31, 31→42, 42→53, 53→64 decode A; 64→85 prefill B
		// + decode A; 85→97 decode A, B (B done); A alone to 130.
		checkTimes(t, w, []want{{"A", 0, 20, 97 + 3*11}, {"B", 64, 85, 97}, {"C", 200, 220, 220}, {"D", 235, 255, 255}})
	})
}

// Admission under the step loop's lock (Ollama's runner), with 10 ms
// steps: a request that waits alone is passed over once and joins the
// second step after it arrived; one that arrives after it was passed over
// goes in with it; a request that finds no free slot takes a finished
// sequence's slot as the step after its last token forms, and makes its
// first token three steps after that last token; an idle engine takes
// requests at once, also one that waited while the engine went idle.
func TestAdmissionUnderLock(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := policy(t, Continuous)
		p.MaxNumSeqs = 3
		cfg := testConfig(p, 100, noSkip)
		cfg.Step = Linear{C0: 10e-3, Admit: Admission{Lock: true}}
		reqs := []*traces.Request{
			req("A", 0, 10, 20), // 0→10 prefill, then one token every 10 ms to 200
			req("B", 25, 10, 2), // waits from 25, passed over at 30, joins the step at 40
			req("E", 35, 10, 2), // waits from 35: goes in with B at 40
			req("C", 45, 10, 1), // no slot until B and E end (60): passed over at 70, joins at 80
			req("F", 300, 10, 1),
			req("G", 305, 10, 1), // waits through F's prefill; the engine is idle at 310
		}
		_, w := mustRun(t, cfg, reqs)
		checkTimes(t, w, []want{{"A", 0, 10, 200}, {"B", 40, 50, 60}, {"E", 40, 50, 60}, {"C", 80, 90, 90},
			{"F", 300, 310, 310}, {"G", 310, 320, 320}})

		// With a delay before it reaches the loop: B gets there at 37,
		// is passed over at 40 and joins at 50.
		cfg.Step = Linear{C0: 10e-3, Admit: Admission{Delay: 0.012, Lock: true}}
		_, w = mustRun(t, cfg, []*traces.Request{req("A", 0, 10, 10), req("B", 25, 10, 1)})
		checkTimes(t, w, []want{{"A", 0, 10, 100}, {"B", 50, 60, 60}})
	})
}

func TestFixedBatchWaitsMaxWait(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := PolicyConfig{Name: Fixed, BatchSize: 4, MaxWaitMs: 50}
		reqs := []*traces.Request{
			req("A", 0, 10, 2), req("B", 10, 10, 2), // window expires at 50 ms
			req("C", 200, 10, 1), req("D", 201, 10, 1), req("E", 202, 10, 1), req("F", 203, 10, 1), // full at 203
		}
		_, w := mustRun(t, testConfig(p, 100, noSkip), reqs)
		// 50→80 prefill 20 tokens; 80→92 decode 2.
		// 203→253 prefill 40 tokens, one token each.
		checkTimes(t, w, []want{{"A", 50, 80, 92}, {"B", 50, 80, 92}, {"C", 203, 253, 253}, {"F", 203, 253, 253}})
	})
}

func TestTokenBudgetBatch(t *testing.T) {
	p := PolicyConfig{Name: TokenBudget, TokenBudget: 50, MaxWaitMs: 1000}
	reqs := []*traces.Request{
		req("A", 0, 10, 10), req("B", 1, 10, 10), // 40 tokens
		req("C", 2, 10, 10), // would make 60 > 50: batch {A, B} is full at 2 ms
		req("X", 3, 50, 10), // 60 > budget alone: rejected
	}
	sum, w := mustRun(t, testConfig(p, 100, false), reqs)
	if w.byID["A"].StartTime != 2*ms || w.byID["B"].StartTime != 2*ms {
		t.Errorf("A, B start at %d, %d ns; want 2 ms", w.byID["A"].StartTime, w.byID["B"].StartTime)
	}
	if w.byID["C"].StartTime <= w.byID["A"].LastToken-1 {
		t.Errorf("C started at %d before batch {A,B} ended at %d", w.byID["C"].StartTime, w.byID["A"].LastToken)
	}
	if !strings.HasPrefix(w.byID["X"].Error, "rejected") || sum.Rejected != 1 || sum.Completed != 3 {
		t.Errorf("X error %q, rejected %d, completed %d", w.byID["X"].Error, sum.Rejected, sum.Completed)
	}
}

func TestStaticOOMReported(t *testing.T) {
	p := PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}
	// 100+20 tokens = 8 blocks of 16 each: one fits in 10 blocks, two do not.
	reqs := []*traces.Request{req("A", 0, 100, 20), req("B", 0, 100, 20), req("C", 0, 100, 20)}
	sum, _, err := run(t, testConfig(p, 10, false), reqs)
	var oom *OOMError
	if !errors.As(err, &oom) {
		t.Fatalf("err = %v, want *OOMError", err)
	}
	want := OOMReport{Batch: 1, BatchSize: 2, BatchTokens: 240, BlocksNeeded: 16, FreeBlocks: 10, TotalBlocks: 10, Queued: 1}
	if oom.Report != want || sum == nil || sum.OOM == nil || *sum.OOM != want {
		t.Errorf("report %+v, want %+v (summary %+v)", oom.Report, want, sum)
	}
	if !strings.Contains(err.Error(), "240 tokens") {
		t.Errorf("message %q lacks the token total", err)
	}
}

func TestRejectNeverFits(t *testing.T) {
	for _, name := range Policies {
		t.Run(name, func(t *testing.T) {
			reqs := []*traces.Request{req("big", 0, 150, 20), req("ok", 1, 10, 5)}
			sum, w := mustRun(t, testConfig(policy(t, name), 10, false), reqs)
			big := w.byID["big"]
			if sum.Rejected != 1 || sum.Completed != 1 || !strings.Contains(big.Error, "KV blocks") || big.Succeeded() {
				t.Errorf("rejected %d completed %d, big: %q", sum.Rejected, sum.Completed, big.Error)
			}
			if !w.byID["ok"].Succeeded() {
				t.Error("ok did not succeed")
			}
		})
	}
	t.Run("continuous-unchunked", func(t *testing.T) {
		p := policy(t, Continuous)
		p.ChunkedPrefill, p.MaxNumBatchedTokens = false, 256
		sum, w := mustRun(t, testConfig(p, 100, false), []*traces.Request{req("long", 0, 300, 2)})
		if sum.Rejected != 1 || !strings.Contains(w.byID["long"].Error, "max_num_batched_tokens") {
			t.Errorf("rejected %d: %q", sum.Rejected, w.byID["long"].Error)
		}
	})
}

func TestPreemptionRecomputes(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		var reqs []*traces.Request
		for _, id := range []string{"A", "B", "C", "D"} {
			reqs = append(reqs, req(id, 0, 8, 30)) // 38 tokens = 10 blocks of 4 each at the end
		}
		cfg := testConfig(policy(t, Continuous), 20, noSkip)
		cfg.BlockSize = 4
		sum, w := mustRun(t, cfg, reqs)
		if sum.Completed != 4 || sum.Preemptions == 0 {
			t.Fatalf("completed %d, preemptions %d", sum.Completed, sum.Preemptions)
		}
		var rowPre int32
		for _, r := range w.rows {
			if !r.Succeeded() || r.UsageOutput != 30 {
				t.Errorf("%s: succeeded %v output %d", r.ID, r.Succeeded(), r.UsageOutput)
			}
			rowPre += r.Preemptions
		}
		if int64(rowPre) != sum.Preemptions {
			t.Errorf("rows count %d preemptions, summary %d", rowPre, sum.Preemptions)
		}
		// The newest running request is the victim: A (oldest) never is.
		if w.byID["A"].Preemptions != 0 || w.byID["D"].Preemptions == 0 {
			t.Errorf("preemptions A=%d D=%d", w.byID["A"].Preemptions, w.byID["D"].Preemptions)
		}
	})
}

func TestPrefixCacheHitReducesPrefill(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		reqs := []*traces.Request{
			req("A", 0, 16, 2, 1, 2, 3, 4),
			req("B", 1000, 16, 2, 1, 2, 3, 4), // same prompt, after A finished
			req("C", 2000, 16, 2, 1, 2, 9, 9), // shares the first two blocks
		}
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		cfg.BlockSize, cfg.PrefixCaching = 4, true
		var log bytes.Buffer
		cfg.Decisions = &log
		sum, w := mustRun(t, cfg, reqs)
		// A computes 16 tokens (26 ms); B hits 3 blocks (the last is always
		// recomputed) and computes 4 (14 ms); C hits 2 blocks, computes 8.
		checkTimes(t, w, []want{{"A", 0, 26, 37}, {"B", 1000, 1014, 1025}, {"C", 2000, 2018, 2029}})
		if c := [3]int32{w.byID["A"].UsageCached, w.byID["B"].UsageCached, w.byID["C"].UsageCached}; c != [3]int32{0, 12, 8} {
			t.Errorf("cached tokens %v, want [0 12 8]", c)
		}
		if sum.PrefixLookups != 9 || sum.PrefixHits != 5 || sum.CachedTokens != 20 {
			t.Errorf("lookups %d hits %d cached %d", sum.PrefixLookups, sum.PrefixHits, sum.CachedTokens)
		}
		var prefill []int
		sc := bufio.NewScanner(&log)
		for sc.Scan() {
			var line struct {
				PrefillTokens int `json:"prefill_tokens"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("%v: %s", err, sc.Text())
			}
			if line.PrefillTokens > 0 {
				prefill = append(prefill, line.PrefillTokens)
			}
		}
		if len(prefill) != 3 || prefill[0] != 16 || prefill[1] != 4 || prefill[2] != 8 {
			t.Errorf("prefill tokens per step %v, want [16 4 8]", prefill)
		}
	})
}

func TestChunkedPrefillSplitsPrompt(t *testing.T) {
	p := policy(t, Continuous)
	p.MaxNumSeqs, p.MaxNumBatchedTokens = 4, 64
	cfg := testConfig(p, 100, false)
	var log bytes.Buffer
	cfg.Decisions = &log
	_, w := mustRun(t, cfg, []*traces.Request{req("A", 0, 150, 2)})
	// Chunks 64, 64, 22: 74 + 74 + 32 ms to the first token.
	checkTimes(t, w, []want{{"A", 0, 180, 191}})
	if n := strings.Count(log.String(), "\n"); n != 4 {
		t.Errorf("%d decision lines, want 4:\n%s", n, log.String())
	}
}

func TestMaxNewTokensCapsAndReserves(t *testing.T) {
	// 100+20 tokens = 8 blocks, so two requests fit in 18 blocks. With a
	// max_new of 60 a static batch must reserve 100+60 = 160 tokens = 10
	// blocks per request: a batch of two no longer fits, although the real
	// outputs would.
	p := PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}
	reqs := []*traces.Request{req("A", 0, 100, 20), req("B", 0, 100, 20)}
	cfg := testConfig(p, 18, false)
	if _, _, err := run(t, cfg, reqs); err != nil {
		t.Fatalf("without max_new: %v", err)
	}
	cfg.MaxNewTokens = 60
	_, _, err := run(t, cfg, reqs)
	var oom *OOMError
	if !errors.As(err, &oom) || oom.Report.BatchTokens != 320 {
		t.Fatalf("err = %v, want an OOM of a 320-token batch", err)
	}

	// The cap shortens outputs under every policy.
	cfg = testConfig(policy(t, Continuous), 100, false)
	cfg.MaxNewTokens = 5
	sum, w := mustRun(t, cfg, []*traces.Request{req("A", 0, 10, 50)})
	if got := w.byID["A"].UsageOutput; got != 5 || sum.OutputTokens != 5 {
		t.Errorf("output %d (summary %d), want capped at 5", got, sum.OutputTokens)
	}
}

// A request longer than max_model_len is refused, as vLLM refuses it; one
// that failed in the source trace has no lengths to serve.
func TestRejectTooLongOrFailedAtSource(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 100, noSkip)
		cfg.MaxModelLen = 64
		failed := req("failed", 2, 0, 0)
		failed.SourceFailed = true
		sum, w := mustRun(t, cfg, []*traces.Request{req("long", 0, 60, 5), req("edge", 1, 60, 4), failed})
		if long := w.byID["long"]; !strings.Contains(long.Error, "exceed max_model_len 64") {
			t.Errorf("prompt 60 + output 5 under max_model_len 64: error %q", long.Error)
		}
		if !w.byID["edge"].Succeeded() {
			t.Errorf("prompt 60 + output 4 = max_model_len: %q", w.byID["edge"].Error)
		}
		if f := w.byID["failed"]; !strings.Contains(f.Error, "failed in the source trace") {
			t.Errorf("source-failed row: error %q", f.Error)
		}
		if sum.Rejected != 2 || sum.Completed != 1 || sum.TTFT.N != 1 {
			t.Errorf("rejected %d, completed %d, TTFT from %d requests; want 2, 1, 1", sum.Rejected, sum.Completed, sum.TTFT.N)
		}
	})
}

// recTimer records every step's prefill tokens.
type recTimer struct {
	Linear
	prefill *[]float64
}

func (r recTimer) StepSeconds(b Batch) float64 {
	*r.prefill = append(*r.prefill, b.PrefillTokens)
	return r.Linear.StepSeconds(b)
}

// A request preempted by recompute finds the full blocks of the tokens it
// generated still cached when nothing evicted them, as in vLLM, which
// hashes every full block.
func TestRecomputeFindsOwnBlocks(t *testing.T) {
	var pf []float64
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 4, TotalBlocks: 8, Devices: 1, NoSkip: true,
		PrefixCaching: true, CheckInvariants: true, Step: recTimer{Linear: testTimer, prefill: &pf}}
	_, w := mustRun(t, cfg, []*traces.Request{
		req("A", 0, 4, 20, 1),
		req("C", 0, 4, 7, 2),
		req("B", 0, 4, 20, 3), // newest: preempted at step 5 with 8 tokens of KV (2 full blocks)
	})
	pf = pf[1:] // Validate's probe
	// Step 0: 12 prompt tokens. Step 5 preempts B (4 prompt + 5 generated
	// tokens, 8 of them in 2 full blocks, neither evicted); C ends at step
	// 6; step 7 re-admits B, which should hit both blocks and compute 1
	// token.
	if pf[0] != 12 || pf[7] != 1 {
		t.Errorf("step 0 prefills %v tokens (want 12); B's recompute at step 7 prefills %v tokens, want 1 (8 of its 9 are in its own cached blocks)", pf[0], pf[7])
	}
	if b := w.byID["B"]; b.Preemptions == 0 || !b.Succeeded() {
		t.Errorf("B: %d preemptions, error %q; want it preempted and then served", b.Preemptions, b.Error)
	}
}

// A request's own block keys never equal another's prompt keys, even when
// the trace's hash ids are small integers like request indices: here B's
// prompt continues A's with hash ids 3 and 1 (A's last block index and
// A's request index), which a key chained on A's last key with the same
// mix as prompt keys would reproduce. A is preempted while B holds them.
func TestOwnBlockKeysApartFromPrompts(t *testing.T) {
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 1, HashBlockSize: 1, TotalBlocks: 70, Devices: 1, NoSkip: true,
		PrefixCaching: true, CheckInvariants: true, Step: testTimer}
	sum, w := mustRun(t, cfg, []*traces.Request{
		req("B", 0, 8, 60, 10, 11, 12, 13, 3, 1, 77, 78),
		req("A", 1, 4, 40, 10, 11, 12, 13),
	})
	if a := w.byID["A"]; a.Preemptions == 0 || !a.Succeeded() || sum.Completed != 2 {
		t.Errorf("A: %d preemptions, error %q; %d completed; want A preempted and both served", a.Preemptions, a.Error, sum.Completed)
	}
}
