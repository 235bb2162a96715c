package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/servesim/servesim/traces"
)

// prefixWorkload is randWorkload whose prompts open with one of three
// shared 4-block prefixes (hash blocks of hbs tokens).
func prefixWorkload(seed uint64, n int, rate float64, maxP, maxO, hbs int) []*traces.Request {
	reqs := randWorkload(seed, n, rate, maxP, maxO)
	addPrefixHashes(rand.New(rand.NewPCG(seed, 13)), reqs, hbs)
	return reqs
}

// addPrefixHashes gives each prompt hashes of hbs-token blocks, its first
// four one of three shared prefixes picked by rng.
func addPrefixHashes(rng *rand.Rand, reqs []*traces.Request, hbs int) {
	for i, r := range reqs {
		group := uint64(rng.IntN(3))
		for b := 0; b < (int(r.PromptTokens)+hbs-1)/hbs; b++ {
			if b < 4 {
				r.PrefixHashes = append(r.PrefixHashes, group*1000+uint64(b))
			} else {
				r.PrefixHashes = append(r.PrefixHashes, uint64(i)<<20|uint64(b))
			}
		}
	}
}

// TestSkipMatchesSteppingRandom compares skipping with stepping on 400
// random configurations: every policy, prefix caching with hash blocks of
// other sizes, admission delays, the runner lock and dearer steps after a
// prompt.
func TestSkipMatchesSteppingRandom(t *testing.T) {
	bad := 0
	for seed := uint64(1); seed <= 400 && bad < 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		bs := []int{1, 2, 4, 16}[rng.IntN(4)]
		hbs := []int{bs, 2 * bs, 3, 16}[rng.IntN(4)]
		total := 8 + rng.IntN(200)
		maxSeqs := 1 + rng.IntN(8)
		maxTok := maxSeqs + rng.IntN(200)
		chunked := rng.IntN(2) == 0
		var tm StepTimer = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6}
		if rng.IntN(3) == 0 {
			admit := []Admission{{Delay: 0.007}, {Lock: true}, {Delay: 0.007, Lock: true}}[rng.IntN(3)]
			tm = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6, Admit: admit}
		} else if rng.IntN(3) == 0 {
			tm = realRoofline
		} else if rng.IntN(2) == 0 {
			tm = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6, Cq: 4e-3} // dearer steps after a prompt
		}
		pol := PolicyConfig{Name: Continuous, MaxNumSeqs: maxSeqs, MaxNumBatchedTokens: maxTok, ChunkedPrefill: chunked}
		switch rng.IntN(5) {
		case 0:
			pol = PolicyConfig{Name: Fixed, BatchSize: 1 + rng.IntN(4), MaxWaitMs: 20}
		case 1:
			pol = PolicyConfig{Name: TokenBudget, TokenBudget: 200 + rng.IntN(400), MaxWaitMs: 20}
		}
		reqs := prefixWorkload(seed, 40, 20, 120, 60, hbs)
		var ws [2]*memWriter
		var sums [2]*Summary
		var errs [2]error
		for i, noSkip := range []bool{true, false} {
			cfg := Config{Policy: pol, BlockSize: bs, HashBlockSize: hbs, TotalBlocks: total, Step: tm, Devices: 1,
				NoSkip: noSkip, CheckInvariants: true, PrefixCaching: true}
			sums[i], ws[i], errs[i] = run(t, cfg, reqs)
			if _, ok := errs[i].(*OOMError); errs[i] != nil && !ok {
				t.Fatalf("seed %d: %v", seed, errs[i])
			}
		}
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Errorf("seed %d: errs %v vs %v", seed, errs[0], errs[1])
			bad++
			continue
		}
		if errs[0] != nil {
			continue
		}
		for id, ra := range ws[0].byID {
			rb := ws[1].byID[id]
			if abs(ra.FirstToken-rb.FirstToken) > 2 || abs(ra.LastToken-rb.LastToken) > 2 || ra.Preemptions != rb.Preemptions || ra.UsageCached != rb.UsageCached {
				bad++
				t.Errorf("seed %d %s bs=%d hbs=%d total=%d: req %s first %d/%d last %d/%d pre %d/%d cached %d/%d", seed, pol.Name, bs, hbs, total, id,
					ra.FirstToken, rb.FirstToken, ra.LastToken, rb.LastToken, ra.Preemptions, rb.Preemptions, ra.UsageCached, rb.UsageCached)
				break
			}
		}
		if sums[0].PrefixHits != sums[1].PrefixHits {
			t.Errorf("seed %d: hits %d vs %d", seed, sums[0].PrefixHits, sums[1].PrefixHits)
		}
	}
}
