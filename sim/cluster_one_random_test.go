package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestClusterOneReplicaMatchesRunRandom: a one-replica cluster gives Run's
// rows, error and summary on random small runs with warm-up rows, prefix
// caching, admission delays, static OOMs and rejections.
func TestClusterOneReplicaMatchesRunRandom(t *testing.T) {
	bad := 0
	for seed := uint64(1); seed <= 150 && bad < 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 21))
		var tm StepTimer = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6}
		slots := 0
		switch rng.IntN(5) {
		case 4:
			tm, slots = Linear{C0: 4e-3, Cp: 3e-4, Ca: 2e-6, Cd: 1.5e-3, Ck: 1e-6, Crp: 3e-7, Crd: 1.2e-6, Cr: 2e-6}, 1+rng.IntN(3)
		case 0:
			admit := []Admission{{Delay: 0.007}, {Lock: true}, {Delay: 0.007, Lock: true}}[rng.IntN(3)]
			tm = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6, Admit: admit}
		case 1:
			tm = realRoofline
		case 2:
			tm = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6, Cq: 4e-3}
		}
		pol := PolicyConfig{Name: Continuous, MaxNumSeqs: 1 + rng.IntN(8), MaxNumBatchedTokens: 64 + rng.IntN(200), ChunkedPrefill: rng.IntN(2) == 0}
		switch rng.IntN(4) {
		case 0:
			pol = PolicyConfig{Name: Fixed, BatchSize: 1 + rng.IntN(4), MaxWaitMs: 20}
		case 1:
			pol = PolicyConfig{Name: TokenBudget, TokenBudget: 200 + rng.IntN(400), MaxWaitMs: 20}
		}
		reqs := prefixWorkload(seed, 40, 20, 120, 60, 16)
		nWarm := rng.IntN(8)
		for i := 0; i < nWarm && i < len(reqs); i++ {
			reqs[rng.IntN(len(reqs))].Warmup = true
		}
		cfg := Config{Policy: pol, BlockSize: 16, TotalBlocks: 10 + rng.IntN(60), Step: tm, Devices: 1 + rng.IntN(2),
			NoSkip: rng.IntN(2) == 0, CheckInvariants: true, PrefixCaching: rng.IntN(2) == 0, MaxNewTokens: rng.IntN(2) * 40,
			Power: func(u float64) float64 { return 100 + 600*u }}
		if pol.Name == Continuous && slots > 0 {
			cfg.Slots, cfg.Cells = slots, 2000
		}
		if rng.IntN(3) == 0 && (pol.Name != Continuous || pol.ChunkedPrefill) {
			cfg.MaxModelLen = 100 + rng.IntN(100)
		}
		want, ww, werr := run(t, cfg, reqs)
		for _, router := range Routers {
			gw := &memWriter{}
			got, gerr := RunCluster(t.Context(), onePool(1, router, cfg), newSliceReader(reqs), gw)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("seed %d %s: err %v, Run's %v", seed, router, gerr, werr)
				bad++
				continue
			}
			if !bytes.Equal(ww.bytes(), gw.bytes()) {
				t.Errorf("seed %d %s: rows differ from Run's", seed, router)
				bad++
				continue
			}
			w := *want
			rep := got.Pools[0].Replicas[0]
			rep.Requests = w.Requests // the replica's leaves out those an OOM kept from arriving
			if !reflect.DeepEqual(rep, w) {
				t.Errorf("seed %d %s (%s): replica summary\n%+v\nwant Run's\n%+v", seed, router, pol.Name, rep, w)
				bad++
				continue
			}
			w.KV.Series = nil
			if !reflect.DeepEqual(got.Summary, w) {
				t.Errorf("seed %d %s: aggregate\n%+v\nwant Run's\n%+v", seed, router, got.Summary, w)
				bad++
			}
		}
	}
}
