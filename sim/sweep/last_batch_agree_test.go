package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// discard is a traces.Writer that keeps nothing.
type discard struct{}

func (discard) Write(*traces.Request) error { return nil }
func (discard) Close() error                { return nil }
func (discard) Abort()                      {}

// simLastBatch runs the evaluator's config over its trace, every request
// waiting from the start, and returns the size of the last batch the
// simulator formed and whether it started only once max_wait_ms ran out
// (it was not full).
func simLastBatch(t *testing.T, ev *evaluator) (size int, waited bool) {
	t.Helper()
	var log bytes.Buffer
	sc := ev.cfg.Resolved.SimConfig(plan.Options{})
	sc.Decisions = &log
	ev.rd.reset(ev.t, 1)
	if _, err := sim.Run(context.Background(), sc, &ev.rd, discard{}); err != nil {
		t.Fatal(err)
	}
	var start int64
	for line := range strings.Lines(log.String()) {
		var d struct {
			TNs        int64   `json:"t_ns"`
			PrefillIDs []int64 `json:"prefill_ids"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		if len(d.PrefillIDs) > 0 {
			size, start = len(d.PrefillIDs), d.TNs
		}
	}
	return size, float64(start) >= ev.cfg.Plan.Batch.MaxWaitMS*1e6
}

// The last-batch gate splits the admitted requests into token_budget
// batches as the simulator forms them: on hand-made traces of mixed
// prompts, all waiting from the start, the gate's last batch is the one
// the simulator starts only when max_wait_ms runs out, or none when the
// simulator's last batch starts full.
func TestLastBatchLenAgreesWithSimulator(t *testing.T) {
	for _, c := range []struct {
		name    string
		prompts []int32 // each reserves 1024 more: model.max_new_tokens
	}{
		{"even", []int32{100, 100, 100, 100, 100, 100}},
		{"next does not fit", []int32{2000, 900, 3000, 100, 1500, 50}},
		{"budget left below any request", []int32{1900, 1000, 300, 300}},
		{"budget left just fits the least", []int32{1000, 927, 1}},
		{"whole batches", []int32{1476, 1476, 1476, 1476}},
		{"one", []int32{40}},
	} {
		_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["token_budget"]
"batch.max_token_budget" = [5000]
"batch.max_wait_ms" = [600000]
[slo]
ttft_p99_ms = 2000
`)
		if err != nil {
			t.Fatal(err)
		}
		tr := &Trace{Name: c.name}
		for i, p := range c.prompts {
			q := traces.Request{ID: fmt.Sprint(i), Arrival: int64(i), PromptTokens: p, OutputTokens: 10}
			q.ClearObserved()
			tr.Reqs = append(tr.Reqs, q)
		}
		tr.nAll, tr.Span, tr.Rate = int64(len(tr.Reqs)), 1e-9*float64(len(tr.Reqs)-1), 1
		ex := mustExpand(t, s)
		ev := &evaluator{}
		ev.reset(tr, s, &ex.Configs[0])
		admitted, _ := ev.admitted()
		left := ev.lastBatchLen(admitted)
		size, waited := simLastBatch(t, ev)
		if waited && left != size || !waited && left != 0 {
			t.Errorf("%s: lastBatchLen = %d; the simulator's last batch holds %d and waited for max_wait_ms: %v", c.name, left, size, waited)
		}
	}
}
