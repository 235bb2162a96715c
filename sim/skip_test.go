package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestSkipMatchesStepping runs real traces with event skipping and one
// iteration at a time: every request's TTFT and E2E must agree within 1 µs,
// the peak of KV blocks used exactly, and their time-mean within 0.1% (a
// stretch adds the trapezoid; stepping, each block from its step).
func TestSkipMatchesStepping(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")
	mooncake := loadMooncake(t, "mooncake/conversation_trace.jsonl")
	small := policy(t, Continuous)
	small.MaxNumSeqs, small.MaxNumBatchedTokens = 64, 2048
	admitting := realTimer
	admitting.Admit.Delay = 0.025 // hand-overs cut stretches as arrivals do
	locked := admitting
	locked.Admit.Lock = true // Ollama's runner: requests wait at the step loop's lock
	fewSlots := small
	fewSlots.MaxNumSeqs = 12 // requests wait for slots too
	for _, tc := range []struct {
		name     string
		moon     bool
		cfg      Config
		preempts bool
	}{
		{"azure-continuous", false, Config{Policy: policy(t, Continuous), TotalBlocks: 20000, Step: realTimer}, false},
		{"azure-continuous-admit", false, Config{Policy: policy(t, Continuous), TotalBlocks: 20000, Step: admitting}, false},
		{"azure-continuous-lock", false, Config{Policy: fewSlots, TotalBlocks: 20000, Step: locked}, false},
		{"azure-continuous-tight", false, Config{Policy: small, TotalBlocks: 1500, Step: realRoofline}, true},
		{"azure-fixed", false, Config{Policy: PolicyConfig{Name: Fixed, BatchSize: 16, MaxWaitMs: 20}, TotalBlocks: 20000, Step: realTimer}, false},
		{"mooncake-continuous-prefix", true, Config{Policy: policy(t, Continuous), TotalBlocks: 30000, Step: fastTimer, PrefixCaching: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var outs [2]*memWriter
			var sums [2]*Summary
			for i, noSkip := range []bool{false, true} {
				cfg := tc.cfg
				cfg.BlockSize, cfg.Devices, cfg.NoSkip = 16, 1, noSkip
				w := &memWriter{}
				in := newSliceReader(azure)
				if tc.moon {
					in = mooncakeReader(mooncake)
				}
				sum, err := Run(t.Context(), cfg, in, w)
				if err != nil {
					t.Fatal(err)
				}
				if sum.Completed+sum.Rejected != sum.Requests {
					t.Fatalf("%d completed + %d rejected of %d", sum.Completed, sum.Rejected, sum.Requests)
				}
				if tc.preempts && sum.Preemptions == 0 {
					t.Errorf("expected preemptions in this configuration")
				}
				if tc.moon && sum.PrefixHits == 0 {
					t.Errorf("no prefix cache hits on Mooncake")
				}
				t.Logf("noSkip=%v: steps %d, stretches %d, preemptions %d, hit rate %.3f, p99 TTFT %.3fs",
					noSkip, sum.Steps, sum.Stretches, sum.Preemptions, sum.PrefixHitRate, sum.TTFT.P99)
				outs[i], sums[i] = w, sum
			}
			compareRuns(t, outs[0], outs[1], 1000)
			skip, step := sums[0].KV, sums[1].KV
			if math.Abs(skip.MeanUtil-step.MeanUtil) > 1e-3*step.MeanUtil || skip.MaxUsed != step.MaxUsed {
				t.Errorf("KV mean utilization %.6f, peak %d blocks skipping; %.6f, %d stepping",
					skip.MeanUtil, skip.MaxUsed, step.MeanUtil, step.MaxUsed)
			}
		})
	}
}

func TestDecisionLogStretchLines(t *testing.T) {
	reqs := synthWorkload(3, 50, 2)
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 300, Step: realTimer, Devices: 1}
	var log bytes.Buffer
	cfg.Decisions = &log
	sum, _ := mustRun(t, cfg, reqs)
	var steps, stretches int64
	sc := bufio.NewScanner(&log)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			T             int64   `json:"t_ns"`
			Steps         int64   `json:"steps"`
			StepS         float64 `json:"step_s"`
			PrefillIDs    []int64 `json:"prefill_ids"`
			DecodeIDs     []int64 `json:"decode_ids"`
			DecodeSeqs    int     `json:"decode_seqs"`
			BlocksUsed    int     `json:"blocks_used"`
			BlocksFree    int     `json:"blocks_free"`
			PreemptedIDs  []int64 `json:"preempted_ids"`
			PrefillTokens int     `json:"prefill_tokens"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if l.DecodeSeqs != len(l.DecodeIDs) || l.BlocksUsed+l.BlocksFree != 300 || !(l.StepS > 0) {
			t.Errorf("inconsistent line %s", sc.Text())
		}
		steps += l.Steps
		if l.Steps > 1 {
			stretches++
			if len(l.PrefillIDs) != 0 {
				t.Errorf("stretch with prefill: %s", sc.Text())
			}
		}
	}
	if steps != sum.Steps || stretches != sum.Stretches || stretches == 0 {
		t.Errorf("log has %d steps in %d stretches; summary %d, %d", steps, stretches, sum.Steps, sum.Stretches)
	}
}
