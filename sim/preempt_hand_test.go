package sim

import (
	"bytes"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Hand-checked preemption cases on the test timer (10 ms + 1 ms per token),
// blocks of 4 tokens: each expected time follows vLLM's recompute preemption.

// Two requests fill 4 blocks; the first decode that needs a fifth preempts the
// newest (B), which keeps its first-token time and recomputes 9 tokens once A
// has finished.
func TestHandPreemptDecode(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 4, noSkip)
		cfg.BlockSize = 4
		var log bytes.Buffer
		cfg.Decisions = &log
		reqs := []*traces.Request{req("A", 0, 4, 10), req("B", 0, 4, 10)}
		sum, w := mustRun(t, cfg, reqs)
		checkTimes(t, w, []want{{"A", 0, 18, 121}, {"B", 0, 18, 184}})
		if w.byID["B"].Preemptions != 1 || w.byID["A"].Preemptions != 0 || sum.Preemptions != 1 {
			t.Errorf("preemptions A %d B %d sum %d", w.byID["A"].Preemptions, w.byID["B"].Preemptions, sum.Preemptions)
		}
		if t.Failed() {
			t.Log(log.String())
		}
	})
}

// With prefix caching the preempted request's full blocks stay cached, freed
// tail first: the running request evicts its newest, and the recompute hits
// what is left. The hit rate counts first schedulings alone, as vLLM's
// prefix cache counters leave resumed requests out: neither 4-token prompt
// looks anything up (its last token is always computed).
func TestHandPreemptPrefix(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 5, noSkip)
		cfg.BlockSize = 4
		cfg.PrefixCaching = true
		var log bytes.Buffer
		cfg.Decisions = &log
		reqs := []*traces.Request{req("A", 0, 4, 10, 1), req("B", 0, 4, 10, 2)}
		sum, w := mustRun(t, cfg, reqs)
		checkTimes(t, w, []want{{"A", 0, 18, 121}, {"B", 0, 18, 180}})
		if w.byID["B"].Preemptions != 1 || sum.Preemptions != 1 || sum.PrefixLookups != 0 || sum.PrefixHits != 0 || w.byID["B"].UsageCached != 0 {
			t.Errorf("preemptions B %d sum %d lookups %d hits %d cached %d", w.byID["B"].Preemptions, sum.Preemptions, sum.PrefixLookups, sum.PrefixHits, w.byID["B"].UsageCached)
		}
		if t.Failed() {
			t.Log(log.String())
		}
	})
}

// One block more: the recompute hits 2 of its 3 blocks, generated tokens
// included, which the hit rate leaves out as TestHandPreemptPrefix says.
func TestHandPreemptOwnBlocks(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 6, noSkip)
		cfg.BlockSize = 4
		cfg.PrefixCaching = true
		var log bytes.Buffer
		cfg.Decisions = &log
		reqs := []*traces.Request{req("A", 0, 4, 10, 1), req("B", 0, 4, 10, 2)}
		sum, w := mustRun(t, cfg, reqs)
		checkTimes(t, w, []want{{"A", 0, 18, 125}, {"B", 0, 18, 140}})
		if w.byID["B"].Preemptions != 1 || sum.Preemptions != 1 || sum.PrefixLookups != 0 || sum.PrefixHits != 0 || w.byID["B"].UsageCached != 0 {
			t.Errorf("preemptions B %d sum %d lookups %d hits %d cached %d", w.byID["B"].Preemptions, sum.Preemptions, sum.PrefixLookups, sum.PrefixHits, w.byID["B"].UsageCached)
		}
		if t.Failed() {
			t.Log(log.String())
		}
	})
}

// Chunked prefill with a budget of 6: A's decode takes its token first, B's
// prefill the rest; B runs out of blocks mid-prefill, preempts itself, keeps
// its complete blocks cached and recomputes once it fits. The hit rate
// counts B's first lookup alone: 3 blocks (its last is always computed),
// none cached.
func TestHandPreemptChunk(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := policy(t, Continuous)
		p.MaxNumSeqs, p.MaxNumBatchedTokens = 4, 6
		cfg := testConfig(p, 5, noSkip)
		cfg.BlockSize = 4
		cfg.PrefixCaching = true
		var log bytes.Buffer
		cfg.Decisions = &log
		reqs := []*traces.Request{req("A", 0, 4, 12, 1), req("B", 0, 16, 2, 2, 3, 4, 5)}
		sum, w := mustRun(t, cfg, reqs)
		checkTimes(t, w, []want{{"A", 0, 16, 147}, {"B", 0, 179, 190}})
		if w.byID["B"].Preemptions != 1 || sum.Preemptions != 1 || sum.PrefixLookups != 3 || sum.PrefixHits != 0 || w.byID["B"].UsageCached != 0 {
			t.Errorf("preemptions B %d sum %d lookups %d hits %d cached %d", w.byID["B"].Preemptions, sum.Preemptions, sum.PrefixLookups, sum.PrefixHits, w.byID["B"].UsageCached)
		}
		if t.Failed() {
			t.Log(log.String())
		}
	})
}

// A (hashes 1,2) ends first, B (3,4) later; C (5,6) needs 2 fresh blocks
// when only the cached ones are free: it evicts A's, tail first, so D
// (A's prefix) misses and E (B's) hits.
func TestHandLRU(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 4, noSkip)
		cfg.BlockSize = 4
		cfg.PrefixCaching = true
		reqs := []*traces.Request{
			req("A", 0, 8, 1, 1, 2), req("B", 100, 8, 1, 3, 4),
			req("C", 200, 8, 1, 5, 6), req("E", 400, 9, 1, 3, 4), req("D", 500, 9, 1, 1, 2),
		}
		sum, w := mustRun(t, cfg, reqs)
		if w.byID["D"].UsageCached != 0 || w.byID["E"].UsageCached != 8 {
			t.Errorf("cached D %d E %d", w.byID["D"].UsageCached, w.byID["E"].UsageCached)
		}
		if sum.PrefixHits == 0 {
			t.Errorf("no prefix hits in %d lookups", sum.PrefixLookups)
		}
	})
}

// Unique hashes and no preemption: prefix caching changes nothing.
func TestHandUniqueHashesSameAsOff(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		reqs := randWorkload(seed, 40, 30, 120, 40)
		for i, r := range reqs {
			for b := 0; b < int(r.PromptTokens)/4; b++ {
				r.PrefixHashes = append(r.PrefixHashes, uint64(i)<<20|uint64(b))
			}
		}
		p := PolicyConfig{Name: Continuous, MaxNumSeqs: 1 + int(seed%6), MaxNumBatchedTokens: 40 + int(seed*7%100), ChunkedPrefill: seed%2 == 0}
		var rows [2]*memWriter
		var sums [2]*Summary
		for i, pc := range []bool{false, true} {
			cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 2000, Step: testTimer, Devices: 1, PrefixCaching: pc, CheckInvariants: true}
			sums[i], rows[i] = mustRun(t, cfg, reqs)
		}
		if sums[0].Preemptions != 0 {
			continue
		}
		if !bytes.Equal(rows[0].bytes(), rows[1].bytes()) {
			t.Fatalf("seed %d: rows differ", seed)
		}
		if sums[1].PrefixHits != 0 {
			t.Fatalf("seed %d: hits %d", seed, sums[1].PrefixHits)
		}
	}
}
