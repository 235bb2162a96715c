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
	ResidentTokens int64   `json:"resident_tokens"`
	DecodeIDs      []int64 `json:"decode_ids"`
	DecodeSeqs     int64   `json:"decode_seqs"`
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
