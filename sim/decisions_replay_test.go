package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// decisionLine is one line of the decision log (decisions.go).
type decisionLine struct {
	TNs            int64   `json:"t_ns"`
	Steps          int64   `json:"steps"`
	StepS          float64 `json:"step_s"`
	PrefillIDs     []int64 `json:"prefill_ids"`
	PrefillTokens  int64   `json:"prefill_tokens"`
	PrefillAttn    int64   `json:"prefill_attn"`
	PrefillContext int64   `json:"prefill_context_tokens"`
	ResidentTokens int64   `json:"resident_tokens"`
	DecodeIDs      []int64 `json:"decode_ids"`
	DecodeSeqs     int64   `json:"decode_seqs"`
	DecodeContext  int64   `json:"decode_context_tokens"`
	AfterPrefill   int64   `json:"after_prefill"`
	PreemptedIDs   []int64 `json:"preempted_ids"`
	BlocksUsed     int     `json:"blocks_used"`
	BlocksFree     int     `json:"blocks_free"`
	Waiting        int     `json:"waiting"`
}

func readDecisions(t *testing.T, log *bytes.Buffer) []decisionLine {
	t.Helper()
	var out []decisionLine
	sc := bufio.NewScanner(log)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l decisionLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d: %v: %s", len(out)+1, err, sc.Text())
		}
		out = append(out, l)
	}
	return out
}

// The decision log adds up to the run it logs: its steps, busy time and
// preemptions are the summary's, blocks used + free are the device's at
// every line, and without preemption its prompt tokens are those served
// less those cached and its decode tokens the output tokens less the one
// each prefill produces.
func TestDecisionLogAddsUpToSummary(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")[:1500]
	synth := synthWorkload(5, 400, 4)
	chunkless := policy(t, Continuous)
	chunkless.ChunkedPrefill = false
	slots := policy(t, Continuous)
	slots.MaxNumSeqs = 4
	for _, tc := range []struct {
		name   string
		reqs   []*traces.Request
		pol    PolicyConfig
		blocks int
		cache  bool
	}{
		{"azure/continuous", azure, policy(t, Continuous), 20000, false},
		{"azure/continuous-tight", azure, policy(t, Continuous), 2000, false},
		{"azure/fixed", azure, policy(t, Fixed), 20000, false},
		{"azure/token_budget", azure, policy(t, TokenBudget), 20000, false},
		{"synth/continuous-cache", synth, policy(t, Continuous), 300, true},
		{"synth/unchunked-cache", synth, chunkless, 3000, true},
		{"synth/serial", synth, policy(t, Serial), 300, false},
		{"synth/fixed-cache", synth, policy(t, Fixed), 3000, true},
		{"synth/slots", synth, slots, 3000, true},
	} {
		for _, noSkip := range []bool{false, true} {
			name := tc.name
			if noSkip {
				name += "/noskip"
			}
			t.Run(name, func(t *testing.T) {
				var log bytes.Buffer
				cfg := Config{Policy: tc.pol, BlockSize: 16, TotalBlocks: tc.blocks, Step: realTimer, Devices: 1,
					NoSkip: noSkip, PrefixCaching: tc.cache, Decisions: &log}
				if tc.pol.MaxNumSeqs == 4 {
					timer := realTimer
					timer.Cr = 1e-8
					cfg.Step, cfg.Slots, cfg.PrefixCaching = timer, 4, false
				}
				sum, _ := mustRun(t, cfg, tc.reqs)
				var steps, prefill, decode, preempts int64
				var busy float64
				for i, l := range readDecisions(t, &log) {
					if l.BlocksUsed < 0 || l.BlocksFree < 0 || l.BlocksUsed+l.BlocksFree != tc.blocks {
						t.Fatalf("line %d: blocks used %d + free %d, the device has %d", i+1, l.BlocksUsed, l.BlocksFree, tc.blocks)
					}
					if int64(len(l.DecodeIDs)) != l.DecodeSeqs {
						t.Fatalf("line %d: %d decode ids, decode_seqs %d", i+1, len(l.DecodeIDs), l.DecodeSeqs)
					}
					steps += l.Steps
					busy += l.StepS
					prefill += l.PrefillTokens
					decode += l.DecodeSeqs * l.Steps
					preempts += int64(len(l.PreemptedIDs))
				}
				if steps != sum.Steps {
					t.Errorf("log has %d steps, summary %d", steps, sum.Steps)
				}
				if math.Abs(busy-sum.BusySeconds) > 1e-6*sum.BusySeconds {
					t.Errorf("log's step_s sum to %.9f s, summary busy %.9f s", busy, sum.BusySeconds)
				}
				if preempts != sum.Preemptions {
					t.Errorf("log has %d preemptions, summary %d", preempts, sum.Preemptions)
				}
				if sum.Preemptions > 0 {
					return
				}
				if want := sum.InputTokens - sum.CachedTokens; prefill != want {
					t.Errorf("log has %d prefill tokens, summary input %d − cached %d = %d", prefill, sum.InputTokens, sum.CachedTokens, want)
				}
				if want := sum.OutputTokens - sum.Completed; decode != want {
					t.Errorf("log has %d decode tokens, summary output %d − completed %d = %d", decode, sum.OutputTokens, sum.Completed, want)
				}
			})
		}
	}
}

// stepBatches are the batches of a line's steps: one for a step line; for
// a stretch, k decode steps whose context and resident tokens grow by
// decode_seqs a step from the logged first step's, the first after_prefill
// of them AfterPrefill.
func (l decisionLine) stepBatches() []Batch {
	n := float64(l.DecodeSeqs)
	out := make([]Batch, l.Steps)
	for j := range out {
		grow := n * float64(j)
		out[j] = Batch{PrefillTokens: float64(l.PrefillTokens), PrefillAttn: float64(l.PrefillAttn),
			PrefillContext: float64(l.PrefillContext), DecodeSeqs: n, DecodeContext: float64(l.DecodeContext) + grow,
			Resident: float64(l.ResidentTokens) + grow}
		if int64(j) < l.AfterPrefill {
			out[j].AfterPrefill = 1
		}
	}
	return out
}

// Each line of the decision log holds its steps' step-time inputs: the
// step model recomputes a step line's step_s exactly and a stretch's to
// rounding, and skipping stretches logs the same decode context and
// after-prefill steps in all as stepping through them.
func TestDecisionLogRecomputesStepTimes(t *testing.T) {
	synth := synthWorkload(5, 400, 4)
	whole := Linear{C0: 4e-3, Cp: 2e-5, Ca: 1e-10, Cd: 5e-5, Ck: 4e-8, Crp: 1e-10, Crd: 2e-9, Cr: 1e-8, Cq: 3e-3}
	slots := policy(t, Continuous)
	slots.MaxNumSeqs = 4
	for _, tc := range []struct {
		name  string
		timer StepTimer
		pol   PolicyConfig
		slots int
	}{
		{"linear", realTimer, policy(t, Continuous), 0},
		{"linear-all-terms", whole, policy(t, Continuous), 0},
		{"linear-slots", whole, slots, 4},
		{"roofline", realRoofline, policy(t, Continuous), 0},
		{"roofline-fixed", realRoofline, policy(t, Fixed), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			totals := func(noSkip bool) (ctx, after float64, stretches int) {
				var log bytes.Buffer
				cfg := Config{Policy: tc.pol, BlockSize: 16, TotalBlocks: 3000, Step: tc.timer, Devices: 1,
					NoSkip: noSkip, PrefixCaching: tc.slots == 0, Slots: tc.slots, Decisions: &log}
				mustRun(t, cfg, synth)
				for i, l := range readDecisions(t, &log) {
					var want float64
					for _, b := range l.stepBatches() {
						want += tc.timer.StepSeconds(b)
						ctx += b.DecodeContext
						after += b.AfterPrefill
					}
					if l.Steps > 1 {
						stretches++
					}
					if l.Steps == 1 && want != l.StepS || math.Abs(want-l.StepS) > 1e-9*l.StepS {
						t.Fatalf("line %d (%d steps): step_s %.12g, the step model gives %.12g for its logged batch", i+1, l.Steps, l.StepS, want)
					}
				}
				return ctx, after, stretches
			}
			ctx, after, stretches := totals(false)
			stepCtx, stepAfter, _ := totals(true)
			if ctx != stepCtx || after != stepAfter {
				t.Errorf("stretches log decode context %g and %g after-prefill steps, stepping logs %g and %g", ctx, after, stepCtx, stepAfter)
			}
			if tc.slots == 0 && stretches == 0 {
				t.Error("no stretch lines")
			}
		})
	}
}

// A run stopped by a static OOM ends its decision log with a line that
// explains it: the batch that did not fit, its tokens and blocks, the
// blocks free and what was still queued, as the OOMReport says.
func TestDecisionLogEndsWithTheOOM(t *testing.T) {
	var log bytes.Buffer
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}, 10, false)
	cfg.Decisions = &log
	_, _, err := run(t, cfg, oomTrace())
	var oom *OOMError
	if !errors.As(err, &oom) {
		t.Fatalf("err = %v, want *OOMError", err)
	}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"t_ns": 1e9, "oom": true, "batch": 2.0, "batch_ids": []any{2.0, 3.0}, "batch_tokens": 240.0,
		"blocks_needed": 16.0, "blocks_used": 0.0, "blocks_free": 10.0, "waiting": 0.0,
	}
	if !reflect.DeepEqual(last, want) {
		t.Errorf("last line %s\nwant %v", lines[len(lines)-1], want)
	}
}
