package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Hand-checked step sequences of the continuous policy, each worked out
// from vLLM v1's scheduler: running requests first, in admission order
// (decodes, then the one partial prefill, which is always the newest);
// a request short of a block preempts the newest running one; no waiting
// request is admitted in a step that preempted; waiting requests are
// admitted FCFS while budget and blocks allow. Blocks hold 4 tokens.
// A step reads "P[prefill ids]/prefill tokens D[decode ids] X[preempted ids]",
// ids being input rows.

// stepCompositions runs reqs one step at a time and returns each step's
// batch from the decision log.
func stepCompositions(t *testing.T, cfg Config, reqs []*traces.Request) []string {
	t.Helper()
	var log bytes.Buffer
	cfg.BlockSize, cfg.NoSkip, cfg.Decisions, cfg.CheckInvariants = 4, true, &log, true
	mustRun(t, cfg, reqs)
	var out []string
	sc := bufio.NewScanner(&log)
	for sc.Scan() {
		var l struct {
			Steps     int64   `json:"steps"`
			Prefill   []int64 `json:"prefill_ids"`
			Tokens    int64   `json:"prefill_tokens"`
			Decode    []int64 `json:"decode_ids"`
			Preempted []int64 `json:"preempted_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("decision log: %v: %s", err, sc.Text())
		}
		if l.Steps != 1 {
			t.Fatalf("decision log: a %d-step stretch with stepping on: %s", l.Steps, sc.Text())
		}
		out = append(out, fmt.Sprintf("P%v/%d D%v X%v", l.Prefill, l.Tokens, l.Decode, l.Preempted))
	}
	return out
}

func checkSteps(t *testing.T, got []string, want ...string) {
	t.Helper()
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("steps:\n%s\nwant:\n%s", g, w)
	}
}

func continuousPolicy(t *testing.T, seqs, tokens int, chunked bool) PolicyConfig {
	p := policy(t, Continuous)
	p.MaxNumSeqs, p.MaxNumBatchedTokens, p.ChunkedPrefill = seqs, tokens, chunked
	return p
}

// Budget 6, 5 blocks. A (4+10) decodes; B (16) prefills in chunks of what
// A leaves, and at 12 tokens needs a fourth block when none is free: as
// the newest it preempts itself, and no one is admitted that step. It is
// readmitted the next step (2 blocks free for its 5-token chunk), runs out
// again when A takes its next block, and so on until A finishes; then it
// prefills alone in chunks of 6.
func TestHandStepsChunkSelfPreempt(t *testing.T) {
	cfg := testConfig(continuousPolicy(t, 4, 6, true), 5, true)
	got := stepCompositions(t, cfg, []*traces.Request{req("A", 0, 4, 10), req("B", 0, 16, 2)})
	checkSteps(t, got,
		"P[0 1]/6 D[] X[]",
		"P[1]/5 D[0] X[]",
		"P[1]/5 D[0] X[]",
		"P[]/0 D[0] X[1]",
		"P[1]/5 D[0] X[]",
		"P[]/0 D[0] X[1]",
		"P[1]/5 D[0] X[]",
		"P[]/0 D[0] X[1]",
		"P[1]/5 D[0] X[]",
		"P[]/0 D[0] X[1]",
		"P[1]/6 D[] X[]",
		"P[1]/6 D[] X[]",
		"P[1]/4 D[] X[]",
		"P[]/0 D[1] X[]",
	)
}

// Without chunked prefill a prompt that does not fit the budget left
// waits, and so does every request behind it: B (8) waits behind A's 4 of
// 10 though C (2) would fit, and C waits behind B's 8 plus A's decode.
func TestHandStepsNoChunkHeadWaits(t *testing.T) {
	cfg := testConfig(continuousPolicy(t, 4, 10, false), 50, true)
	got := stepCompositions(t, cfg, []*traces.Request{req("A", 0, 4, 3), req("B", 0, 8, 2), req("C", 0, 2, 2)})
	checkSteps(t, got,
		"P[0]/4 D[] X[]",
		"P[1]/8 D[0] X[]",
		"P[2]/2 D[0 1] X[]",
		"P[]/0 D[2] X[]",
	)
}

// Three 4-token prompts fill 3 of 6 blocks and their first decode takes
// the other 3. At the ninth token all three need a block: C, the newest,
// is preempted (9 tokens to recompute: 3 blocks, none free); at the
// thirteenth A and B do, and B goes back in front of C. B (13 tokens, 4
// blocks) is admitted once A finishes, and C, behind it, once B does.
func TestHandStepsDecodePreemptsNewest(t *testing.T) {
	cfg := testConfig(continuousPolicy(t, 4, 64, false), 6, true)
	got := stepCompositions(t, cfg, []*traces.Request{req("A", 0, 4, 12), req("B", 0, 4, 12), req("C", 0, 4, 12)})
	want := []string{"P[0 1 2]/12 D[] X[]"}
	for range 4 {
		want = append(want, "P[]/0 D[0 1 2] X[]")
	}
	want = append(want, "P[]/0 D[0 1] X[2]", "P[]/0 D[0 1] X[]", "P[]/0 D[0 1] X[]", "P[]/0 D[0 1] X[]",
		"P[]/0 D[0] X[1]", "P[]/0 D[0] X[]", "P[]/0 D[0] X[]",
		"P[1]/13 D[] X[]", "P[]/0 D[1] X[]", "P[]/0 D[1] X[]", "P[2]/9 D[] X[]")
	for range 6 {
		want = append(want, "P[]/0 D[2] X[]")
	}
	checkSteps(t, got, want...)
}

// vLLM caches a prompt's full blocks when it allocates them, so a request
// admitted later in the same step hits them; the last prompt token is
// always computed. A computes 9 tokens, B and C 1 each.
func TestHandStepsSameStepPrefixHit(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		cfg := testConfig(continuousPolicy(t, 4, 12, chunked), 20, true)
		cfg.PrefixCaching = true
		got := stepCompositions(t, cfg, []*traces.Request{req("A", 0, 9, 2, 1, 2), req("B", 0, 9, 2, 1, 2), req("C", 0, 9, 2, 1, 2)})
		checkSteps(t, got, "P[0 1 2]/11 D[] X[]", "P[]/0 D[0 1 2] X[]")
	}
}

// Budget 6: A's first chunk takes it all; the next step A's last 3 tokens
// come first and B and C, admitted in the 3 left, hit both of A's blocks.
func TestHandStepsChunkThenPrefixHit(t *testing.T) {
	cfg := testConfig(continuousPolicy(t, 4, 6, true), 20, true)
	cfg.PrefixCaching = true
	got := stepCompositions(t, cfg, []*traces.Request{req("A", 0, 9, 2, 1, 2), req("B", 0, 9, 2, 1, 2), req("C", 0, 9, 2, 1, 2)})
	checkSteps(t, got, "P[0]/6 D[] X[]", "P[0 1 2]/5 D[] X[]", "P[]/0 D[0 1 2] X[]")
}
