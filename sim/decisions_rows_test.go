package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// end is when a line's steps end, to the ns the clock rounds to.
func (l decisionLine) end() int64 { return l.TNs + int64(math.Round(l.StepS*1e9)) }

// sameNs: two clock readings agree within the ns the clock rounds to.
func sameNs(a, b int64) bool { return a-b <= 1 && b-a <= 1 }

// logTally is what a decision log says of each request, by input row.
type logTally struct {
	prefillEnds map[int64][]int64 // ends of the lines prefilling it
	lastEnd     map[int64]int64   // end of the last line it runs in
	decodes     map[int64]int64   // decode steps it runs in
	preempts    map[int64][]int64 // when it was preempted
	prefill     int64             // Σ prefill_tokens
}

func tallyLog(lines []decisionLine) logTally {
	t := logTally{prefillEnds: map[int64][]int64{}, lastEnd: map[int64]int64{}, decodes: map[int64]int64{}, preempts: map[int64][]int64{}}
	for _, l := range lines {
		for _, id := range l.PreemptedIDs {
			t.preempts[id] = append(t.preempts[id], l.TNs)
		}
		for _, id := range l.PrefillIDs {
			t.prefillEnds[id] = append(t.prefillEnds[id], l.end())
			t.lastEnd[id] = l.end()
		}
		for _, id := range l.DecodeIDs {
			t.decodes[id] += l.Steps
			t.lastEnd[id] = l.end()
		}
		t.prefill += l.PrefillTokens
	}
	return t
}

// checkLineBounds: lines follow one another in time, and no step holds
// more sequences or tokens than the policy allows.
func checkLineBounds(t *testing.T, lines []decisionLine, p PolicyConfig, reqs []*traces.Request) {
	t.Helper()
	prevEnd := int64(0)
	for i, l := range lines {
		if l.TNs < prevEnd-1 || !(l.StepS > 0) {
			t.Fatalf("line %d: starts at %d ns for %g s, the line before ends at %d ns", i+1, l.TNs, l.StepS, prevEnd)
		}
		prevEnd = l.end()
		seqs := int64(len(l.PrefillIDs)) + l.DecodeSeqs
		switch p.Name {
		case Serial:
			if seqs > 1 {
				t.Fatalf("line %d: %d sequences run under serial", i+1, seqs)
			}
		case Fixed:
			if seqs > int64(p.BatchSize) {
				t.Fatalf("line %d: %d sequences, batch size %d", i+1, seqs, p.BatchSize)
			}
		case TokenBudget:
			var reserved int64
			for _, id := range slices.Concat(l.PrefillIDs, l.DecodeIDs) {
				reserved += int64(reqs[id].PromptTokens) + int64(reqs[id].OutputTokens)
			}
			if reserved > int64(p.TokenBudget) {
				t.Fatalf("line %d: its sequences reserve %d tokens, budget %d", i+1, reserved, p.TokenBudget)
			}
		case Continuous:
			if seqs > int64(p.MaxNumSeqs) {
				t.Fatalf("line %d: %d sequences, max_num_seqs %d", i+1, seqs, p.MaxNumSeqs)
			}
			// Unchunked, a prompt longer than the budget runs alone.
			alone := !p.ChunkedPrefill && seqs == 1 && l.DecodeSeqs == 0
			if tokens := l.PrefillTokens + l.DecodeSeqs; tokens > int64(p.MaxNumBatchedTokens) && !alone {
				t.Fatalf("line %d: %d tokens, max_num_batched_tokens %d", i+1, tokens, p.MaxNumBatchedTokens)
			}
		}
	}
}

// checkRowsAgainstLog: each served row's first token ends a step that
// prefilled it (for a request never preempted, the last), its last token
// ends the last step it ran in, and it decoded in as many steps as it
// has output tokens besides those its prefills produced.
func checkRowsAgainstLog(t *testing.T, tally logTally, rows map[string]*traces.Request, reqs []*traces.Request) {
	t.Helper()
	for idx, in := range reqs {
		id := int64(idx)
		r := rows[in.ID]
		if r == nil || r.Error != "" {
			continue
		}
		ends := tally.prefillEnds[id]
		if !slices.ContainsFunc(ends, func(e int64) bool { return sameNs(e, r.FirstToken) }) {
			t.Fatalf("row %d: first token at %d ns, no step prefilling it ends then (%v)", idx, r.FirstToken, ends)
		}
		if r.Preemptions == 0 && !sameNs(ends[len(ends)-1], r.FirstToken) {
			t.Fatalf("row %d: first token at %d ns, its last prefill step ends at %d ns", idx, r.FirstToken, ends[len(ends)-1])
		}
		if !sameNs(tally.lastEnd[id], r.LastToken) {
			t.Fatalf("row %d: last token at %d ns, the last step it runs in ends at %d ns", idx, r.LastToken, tally.lastEnd[id])
		}
		if n := int64(len(tally.preempts[id])); n != int64(r.Preemptions) {
			t.Fatalf("row %d: %d preemptions, the log has %d", idx, r.Preemptions, n)
		}
		// A recompute after the first token produces the next token.
		var resumed int64
		for _, at := range tally.preempts[id] {
			if at >= r.FirstToken {
				resumed++
			}
		}
		if want := int64(r.UsageOutput) - 1 - resumed; tally.decodes[id] != want {
			t.Fatalf("row %d: %d decode steps in the log, want output %d − 1 − %d resumed after the first token = %d", idx, tally.decodes[id], r.UsageOutput, resumed, want)
		}
	}
}

// The decision log explains the run's rows: the steps each request ran in
// give its first and last token times and its decode tokens, its
// preemptions are its row's, and no step breaks the policy's limits —
// for every policy, with preemption and prefix caching, stepping or
// skipping stretches.
func TestDecisionLogAgreesWithRows(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")[:600]
	synth := synthWorkload(5, 300, 30)
	chunkless := policy(t, Continuous)
	chunkless.ChunkedPrefill = false
	narrow := policy(t, Continuous)
	narrow.MaxNumSeqs, narrow.MaxNumBatchedTokens = 8, 512
	for _, tc := range []struct {
		name   string
		reqs   []*traces.Request
		pol    PolicyConfig
		blocks int
		cache  bool
	}{
		{"azure/serial", azure, policy(t, Serial), 20000, false},
		{"azure/fixed", azure, policy(t, Fixed), 20000, false},
		{"azure/token_budget", azure, policy(t, TokenBudget), 20000, false},
		{"azure/continuous", azure, policy(t, Continuous), 20000, false},
		{"azure/continuous-preempt", azure, policy(t, Continuous), 1500, false},
		{"azure/unchunked-preempt", azure, chunkless, 1500, false},
		{"synth/narrow", synth, narrow, 3000, true},
		{"synth/continuous-preempt-cache", synth, policy(t, Continuous), 300, true},
		{"synth/unchunked-preempt-cache", synth, chunkless, 300, true},
		{"synth/fixed-cache", synth, policy(t, Fixed), 3000, true},
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
				sum, w := mustRun(t, cfg, tc.reqs)
				lines := readDecisions(t, &log)
				checkLineBounds(t, lines, tc.pol, tc.reqs)
				tally := tallyLog(lines)
				checkRowsAgainstLog(t, tally, w.byID, tc.reqs)
				if strings.Contains(tc.name, "preempt") && sum.Preemptions == 0 {
					t.Fatal("no preemptions: the case tests none")
				}
				// A preemption recomputes at most the prompt and output.
				least, most := sum.InputTokens-sum.CachedTokens, sum.InputTokens-sum.CachedTokens
				for _, r := range w.rows {
					if r.Preemptions <= 0 {
						continue
					}
					most += int64(r.Preemptions) * int64(r.PromptTokens+r.OutputTokens)
				}
				if tally.prefill < least || tally.prefill > most {
					t.Errorf("log has %d prefill tokens, want from the summary's input − cached %d to that plus the preempted rows' tokens %d", tally.prefill, least, most)
				}
			})
		}
	}
}

// A static OOM's line names the batch the summary names, and lists as
// many requests as that batch holds.
func TestDecisionLogOOMIsTheSummarys(t *testing.T) {
	synth := synthWorkload(5, 300, 6)
	for _, p := range []PolicyConfig{policy(t, Fixed), policy(t, TokenBudget)} {
		t.Run(p.Name, func(t *testing.T) {
			var log bytes.Buffer
			cfg := Config{Policy: p, BlockSize: 16, TotalBlocks: 120, Step: realTimer, Devices: 1, Decisions: &log}
			sum, _, err := run(t, cfg, synth)
			var oom *OOMError
			if !errors.As(err, &oom) || sum == nil || sum.OOM == nil {
				t.Fatalf("err = %v, want an OOM in the summary", err)
			}
			text := log.Bytes()
			lines := bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n"))
			last := lines[len(lines)-1]
			// A static batch prefills all its members in its first step.
			batches := int64(bytes.Count(text, []byte(`"prefill_ids":[`))) - int64(bytes.Count(text, []byte(`"prefill_ids":[]`)))
			var got struct {
				OOM          bool    `json:"oom"`
				Batch        int64   `json:"batch"`
				BatchIDs     []int64 `json:"batch_ids"`
				BatchTokens  int64   `json:"batch_tokens"`
				BlocksNeeded int64   `json:"blocks_needed"`
				BlocksFree   int     `json:"blocks_free"`
				Waiting      int     `json:"waiting"`
			}
			if err := json.Unmarshal(last, &got); err != nil {
				t.Fatalf("%v: %s", err, last)
			}
			r := sum.OOM
			if !got.OOM || got.Batch != r.Batch || len(got.BatchIDs) != r.BatchSize || got.BatchTokens != r.BatchTokens ||
				got.BlocksNeeded != r.BlocksNeeded || got.BlocksFree != r.FreeBlocks || got.Waiting != r.Queued {
				t.Errorf("OOM line %s\nsummary %+v", last, *r)
			}
			if got.Batch < 2 {
				t.Fatalf("the first batch ran out: the case tests no batch count")
			}
			if got.Batch != batches+1 {
				t.Errorf("OOM line names batch %d, the log ran %d before it", got.Batch, batches)
			}
			var tokens int64
			for _, id := range got.BatchIDs {
				tokens += int64(synth[id].PromptTokens) + int64(synth[id].OutputTokens)
			}
			if tokens != r.BatchTokens {
				t.Errorf("OOM line's batch_ids reserve %d tokens, the summary's batch %d", tokens, r.BatchTokens)
			}
		})
	}
}
