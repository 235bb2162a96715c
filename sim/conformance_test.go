package sim

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// conformancePolicies is every policy in the configurations the suite runs.
func conformancePolicies(t testing.TB) map[string]PolicyConfig {
	unchunked := policy(t, Continuous)
	unchunked.ChunkedPrefill, unchunked.MaxNumSeqs, unchunked.MaxNumBatchedTokens = false, 32, 1024
	small := policy(t, Continuous)
	small.MaxNumSeqs, small.MaxNumBatchedTokens = 16, 256
	return map[string]PolicyConfig{
		"serial":               policy(t, Serial),
		"fixed":                {Name: Fixed, BatchSize: 4, MaxWaitMs: 30},
		"token_budget":         {Name: TokenBudget, TokenBudget: 3000, MaxWaitMs: 30},
		"continuous":           policy(t, Continuous),
		"continuous-small":     small,
		"continuous-unchunked": unchunked,
	}
}

// synthWorkload: n requests, Poisson arrivals at rate per second, prompts
// sharing prefixes from a few groups.
func synthWorkload(seed uint64, n int, rate float64) []*traces.Request {
	rng := rand.New(rand.NewPCG(seed, 7))
	var reqs []*traces.Request
	at := 0.0
	for i := range n {
		at += rng.ExpFloat64() / rate * 1e3
		p := int32(1 + rng.IntN(700))
		o := int32(1 + rng.IntN(250))
		var hashes []uint64
		group := uint64(rng.IntN(4))
		for b := 0; b < int(p)/16; b++ {
			if b < 8 {
				hashes = append(hashes, group*1000+uint64(b))
			} else {
				hashes = append(hashes, uint64(i)<<20|uint64(b))
			}
		}
		if i == 17 {
			p, o = 5000, 10 // never fits 300 blocks: rejected
		}
		reqs = append(reqs, req(strconv.Itoa(i), at, p, o, hashes...))
	}
	return reqs
}

func TestConformance(t *testing.T) {
	reqs := synthWorkload(1, 400, 6)
	for name, p := range conformancePolicies(t) {
		for _, caching := range []bool{false, true} {
			cname := name
			if caching {
				cname += "+prefix"
			}
			t.Run(cname, func(t *testing.T) {
				outs := map[bool]*memWriter{}
				for _, noSkip := range []bool{false, true} {
					cfg := Config{Policy: p, BlockSize: 16, TotalBlocks: 300, Step: realTimer, Devices: 1,
						PrefixCaching: caching, NoSkip: noSkip, CheckInvariants: true}
					var log1, log2 bytes.Buffer
					cfg.Decisions = &log1
					sum, w := mustRun(t, cfg, reqs) // CheckInvariants: block conservation after every step
					outs[noSkip] = w
					// Every request completes or is reported rejected.
					if sum.Completed+sum.Rejected != int64(len(reqs)) || len(w.rows) != len(reqs) || sum.Rejected != 1 {
						t.Fatalf("noSkip=%v: %d completed + %d rejected, %d rows, of %d", noSkip, sum.Completed, sum.Rejected, len(w.rows), len(reqs))
					}
					for _, r := range w.rows {
						if !r.Succeeded() && !strings.HasPrefix(r.Error, "rejected: ") {
							t.Errorf("request %s neither completed nor rejected: %+v", r.ID, r)
						}
						if r.Succeeded() && (r.StartTime < r.Arrival || r.FirstToken <= r.StartTime || r.LastToken < r.FirstToken) {
							t.Errorf("request %s: times out of order %+v", r.ID, r)
						}
					}
					// Determinism: the same input gives byte-identical rows and log.
					cfg.Decisions = &log2
					_, w2 := mustRun(t, cfg, reqs)
					if !bytes.Equal(w.bytes(), w2.bytes()) || !bytes.Equal(log1.Bytes(), log2.Bytes()) {
						t.Errorf("noSkip=%v: two runs differ", noSkip)
					}
				}
				compareRuns(t, outs[false], outs[true], 1000)
			})
		}
	}
}

// compareRuns requires every request's TTFT and E2E to agree within tol ns
// (and the same preemptions) between two runs.
func compareRuns(t *testing.T, a, b *memWriter, tol int64) {
	t.Helper()
	if len(a.rows) != len(b.rows) {
		t.Fatalf("%d rows vs %d", len(a.rows), len(b.rows))
	}
	bad := 0
	for id, ra := range a.byID {
		rb := b.byID[id]
		ta, _ := ra.TTFT()
		tb, _ := rb.TTFT()
		ea, _ := ra.E2E()
		eb, _ := rb.E2E()
		if abs(ta-tb) > tol || abs(ea-eb) > tol || ra.Preemptions != rb.Preemptions || ra.Error != rb.Error {
			if bad++; bad <= 5 {
				t.Errorf("request %s: TTFT %d vs %d, E2E %d vs %d, preemptions %d vs %d", id, ta, tb, ea, eb, ra.Preemptions, rb.Preemptions)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d requests differ", bad)
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
