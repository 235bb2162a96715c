package sim

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/servesim/servesim/traces"
)

// refReq is the state of one request in the reference simulator.
type refReq struct {
	id                    string
	arrival               int64
	prompt, out           int64
	target, computed, gen int64
	blocks                int64
	chunk                 int64
	decoding              bool
	state                 int // 0 waiting-not-arrived/waiting, 1 running, 2 done
	start, first, last    int64
	preempts              int
	rejected              bool
}

// refContinuous is an independent, naive, step-by-step implementation of
// the continuous policy as vLLM schedules (no prefix cache, no admission
// delay): decodes first, preempting the newest by recompute when blocks
// run out, then running prefill chunks, then FCFS admissions, none after
// a preemption.
func refContinuous(reqs []*traces.Request, bs, total int, maxSeqs int, maxTok int64, chunked bool, tm Linear) map[string]*refReq {
	res := map[string]*refReq{}
	var all []*refReq
	for _, r := range reqs {
		q := &refReq{id: r.ID, arrival: r.Arrival, prompt: int64(max(r.PromptTokens, 1)), out: int64(max(r.OutputTokens, 1)), start: -1, first: -1}
		q.target = q.prompt
		res[q.id] = q
		all = append(all, q)
	}
	bf := func(t int64) int64 { return (t + int64(bs) - 1) / int64(bs) }
	free := int64(total)
	var waiting, running []*refReq
	next := 0
	now := int64(0)
	frac := 0.0
	for {
		// arrivals up to now
		for next < len(all) && all[next].arrival <= now {
			q := all[next]
			next++
			if bf(q.prompt+q.out-1) > int64(total) || (!chunked && q.prompt > maxTok) {
				q.rejected = true
				q.state = 2
				continue
			}
			waiting = append(waiting, q)
		}
		if len(running) == 0 && len(waiting) == 0 {
			if next >= len(all) {
				break
			}
			now, frac = all[next].arrival, 0
			continue
		}
		preempted := false
		preempt := func() *refReq {
			v := running[len(running)-1]
			running = running[:len(running)-1]
			free += v.blocks
			v.blocks, v.computed, v.chunk = 0, 0, 0
			v.decoding = false
			v.target = v.prompt + v.gen
			v.preempts++
			v.state = 0
			waiting = append([]*refReq{v}, waiting...)
			preempted = true
			return v
		}
		// 1. decodes
		needs := func() int64 {
			n := int64(0)
			for _, q := range running {
				if q.decoding && q.blocks*int64(bs) < q.computed+1 {
					n++
				}
			}
			return n
		}
		for needs() > free {
			preempt()
		}
		for _, q := range running {
			if q.decoding && q.blocks*int64(bs) < q.computed+1 {
				q.blocks++
				free--
			}
		}
		nDec := int64(0)
		for _, q := range running {
			if q.decoding {
				nDec++
			}
		}
		budget := maxTok - nDec
		// 2. running prefills in admission order
		for i := 0; i < len(running); i++ {
			q := running[i]
			if q.decoding {
				continue
			}
			q.chunk = 0
			if budget <= 0 {
				continue
			}
			c := min(q.target-q.computed, budget)
			need := bf(q.computed+c) - q.blocks
			gone := false
			for need > free {
				v := preempt()
				if v == q {
					gone = true
					break
				}
			}
			if gone {
				break
			}
			q.blocks += need
			free -= need
			q.chunk = c
			budget -= c
		}
		// 3. admissions
		if !(preempted && len(running) > 0) {
			for len(waiting) > 0 && len(running) < maxSeqs && budget > 0 {
				q := waiting[0]
				c := q.target
				if chunked {
					c = min(c, budget)
				} else if c > budget && len(running) > 0 {
					break
				}
				need := bf(c)
				if need > free {
					break
				}
				waiting = waiting[1:]
				q.blocks, q.chunk, q.state = need, c, 1
				free -= need
				if q.start < 0 {
					q.start = now
				}
				running = append(running, q)
				budget -= c
			}
		}
		var b Batch
		for _, q := range running {
			if q.decoding {
				b.DecodeSeqs++
				b.DecodeContext += float64(q.computed + 1)
			} else if q.chunk > 0 {
				b.PrefillTokens += float64(q.chunk)
				b.PrefillAttn += float64(q.chunk) * float64(q.computed+q.chunk)
				b.PrefillContext += float64(q.computed)
			}
		}
		if b.DecodeSeqs == 0 && b.PrefillTokens == 0 {
			// nothing runs: wait for an arrival
			if next >= len(all) {
				panic("stuck")
			}
			now, frac = all[next].arrival, 0
			continue
		}
		dt := tm.StepSeconds(b)
		x := frac + dt*1e9
		n := math.Round(x)
		now += int64(n)
		frac = x - n
		keep := running[:0]
		for _, q := range running {
			done := false
			if q.decoding {
				q.computed++
				q.gen++
				done = q.gen >= q.out
			} else if q.chunk > 0 {
				q.computed += q.chunk
				q.chunk = 0
				if q.computed == q.target {
					q.gen++
					if q.first < 0 {
						q.first = now
					}
					if q.gen >= q.out {
						done = true
					} else {
						q.decoding = true
					}
				}
			}
			if done {
				q.state, q.last = 2, now
				free += q.blocks
				q.blocks = 0
			} else {
				keep = append(keep, q)
			}
		}
		running = keep
	}
	return res
}

// randWorkload is n Poisson arrivals at rate per second with prompts of
// 1..maxP and outputs of 1..maxO tokens.
func randWorkload(seed uint64, n int, rate float64, maxP, maxO int) []*traces.Request {
	rng := rand.New(rand.NewPCG(seed, 11))
	var reqs []*traces.Request
	at := 0.0
	for i := range n {
		at += rng.ExpFloat64() / rate * 1e3
		p := int32(1 + rng.IntN(maxP))
		o := int32(1 + rng.IntN(maxO))
		reqs = append(reqs, req(strconv.Itoa(i), math.Round(at), p, o))
	}
	return reqs
}

// TestContinuousMatchesReference runs 300 random workloads and limits
// through the engine, stepping and skipping, and through refContinuous.
func TestContinuousMatchesReference(t *testing.T) {
	tm := Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6}
	bad := 0
	var totPre, totRej, totStretch int64
	defer func() { t.Logf("preemptions %d rejected %d stretches %d", totPre, totRej, totStretch) }()
	for seed := uint64(1); seed <= 300 && bad < 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		bs := []int{1, 2, 4, 16}[rng.IntN(4)]
		total := 8 + rng.IntN(120)
		maxSeqs := 1 + rng.IntN(8)
		maxTok := int64(maxSeqs + rng.IntN(200))
		chunked := rng.IntN(2) == 0
		reqs := randWorkload(seed, 40, 20, 120, 60)
		ref := refContinuous(reqs, bs, total, maxSeqs, maxTok, chunked, tm)
		for _, noSkip := range []bool{true, false} {
			cfg := Config{Policy: PolicyConfig{Name: Continuous, MaxNumSeqs: maxSeqs, MaxNumBatchedTokens: int(maxTok), ChunkedPrefill: chunked},
				BlockSize: bs, TotalBlocks: total, Step: tm, Devices: 1, NoSkip: noSkip, CheckInvariants: true}
			sum, w, err := run(t, cfg, reqs)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			totPre += sum.Preemptions
			totRej += sum.Rejected
			totStretch += sum.Stretches
			for id, q := range ref {
				r := w.byID[id]
				if q.rejected != (r.Error != "") {
					bad++
					t.Errorf("seed %d noSkip=%v bs=%d total=%d req %s: rejected ref %v sim %q", seed, noSkip, bs, total, id, q.rejected, r.Error)
					continue
				}
				if q.rejected {
					continue
				}
				tol := int64(0)
				if !noSkip {
					tol = 2
				}
				if abs(q.first-r.FirstToken) > tol || abs(q.last-r.LastToken) > tol || abs(q.start-r.StartTime) > tol || int32(q.preempts) != r.Preemptions {
					bad++
					if bad < 8 {
						t.Errorf("seed %d noSkip=%v bs=%d total=%d seqs=%d tok=%d chunked=%v req %s (p=%d o=%d): ref start/first/last/pre %d/%d/%d/%d, sim %d/%d/%d/%d",
							seed, noSkip, bs, total, maxSeqs, maxTok, chunked, id, q.prompt, q.out, q.start, q.first, q.last, q.preempts, r.StartTime, r.FirstToken, r.LastToken, r.Preemptions)
					}
				}
			}
		}
	}
}

// TestContinuousMatchesReferenceOnTraces runs the Azure conv and Mooncake
// traces (the latter without prefix caching, so its long prompts preempt)
// through the engine, stepping and skipping, and through refContinuous:
// every request's first and last token must agree within 1 µs.
func TestContinuousMatchesReferenceOnTraces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reqs   []*traces.Request
		timer  Linear
		blocks int
	}{
		{"azure-conv", loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv"), realTimer, 20000},
		{"mooncake", loadMooncake(t, "mooncake/conversation_trace.jsonl"), fastTimer, 30000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Step, cfg.TotalBlocks = tc.timer, tc.blocks
			p := cfg.Policy
			ref := refContinuous(tc.reqs, cfg.BlockSize, tc.blocks, p.MaxNumSeqs, int64(p.MaxNumBatchedTokens), p.ChunkedPrefill, tc.timer)
			for _, noSkip := range []bool{false, true} {
				cfg.NoSkip = noSkip
				sum, w, err := run(t, cfg, tc.reqs)
				if err != nil {
					t.Fatal(err)
				}
				refPre := 0
				bad := 0
				for id, q := range ref {
					refPre += q.preempts
					r := w.byID[id]
					if q.rejected != (r.Error != "") || abs(q.first-r.FirstToken) > 1000 || abs(q.last-r.LastToken) > 1000 || int32(q.preempts) != r.Preemptions {
						if bad++; bad <= 5 {
							t.Errorf("noSkip=%v request %s: reference first/last/preemptions %d/%d/%d, engine %d/%d/%d (error %q)",
								noSkip, id, q.first, q.last, q.preempts, r.FirstToken, r.LastToken, r.Preemptions, r.Error)
						}
					}
				}
				if bad > 0 {
					t.Errorf("noSkip=%v: %d of %d requests differ", noSkip, bad, len(ref))
				}
				if int64(refPre) != sum.Preemptions {
					t.Errorf("noSkip=%v: %d preemptions, reference %d", noSkip, sum.Preemptions, refPre)
				}
				t.Logf("noSkip=%v: %d requests, %d steps, %d preemptions", noSkip, sum.Requests, sum.Steps, sum.Preemptions)
			}
		})
	}
}
