package sim

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestClusterRoundRobinMatchesShares: round robin sends request i to
// replica i mod n, and replicas interact only through routing, so each
// request's row equals the row of running that replica's share alone.
// Stepping is compared: event skipping cuts a replica's stretches at every
// arrival of the cluster, which may move a time by a nanosecond of rounding.
func TestClusterRoundRobinMatchesShares(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")[:600]
	for i := 0; i < 40; i += 3 { // warm-up rows are routed like the rest
		w := *azure[i]
		w.Warmup = true
		azure[i] = &w
	}
	for _, pol := range []PolicyConfig{policy(t, Continuous), {Name: Fixed, BatchSize: 8, MaxWaitMs: 20}} {
		cfg := Config{Policy: pol, TotalBlocks: 20000, BlockSize: 16, Devices: 2, Step: realTimer, NoSkip: true}
		const n = 3
		cs, cw := mustRunCluster(t, onePool(n, RoundRobin, cfg), newSliceReader(azure))
		for k := range n {
			var share []*traces.Request
			for i := k; i < len(azure); i += n {
				share = append(share, azure[i])
			}
			alone, aw := mustRun(t, cfg, share)
			var got memWriter
			for _, r := range share {
				got.Write(cw.byID[r.ID])
			}
			if !bytes.Equal(got.bytes(), aw.bytes()) {
				t.Errorf("%s: replica %d's rows differ from running its share alone; first differing row, then its share's:\n%s", pol.Name, k, firstDiff(got.bytes(), aw.bytes()))
			}
			rep := cs.Pools[0].Replicas[k]
			if rep.Requests != alone.Requests || rep.Completed != alone.Completed || rep.OutputTokens != alone.OutputTokens ||
				rep.TTFT != alone.TTFT || rep.E2E != alone.E2E || rep.Steps != alone.Steps {
				t.Errorf("%s: replica %d\n%+v\nwant its share's\n%+v", pol.Name, k, rep, *alone)
			}
		}
		if want := float64(n*cfg.Devices) * cs.Makespan; math.Abs(cs.DeviceSeconds-want) > 1e-9 {
			t.Errorf("%s: device-seconds %v, want %d × %v", pol.Name, cs.DeviceSeconds, n*cfg.Devices, cs.Makespan)
		}
		if want := float64(cs.OutputTokens) / cs.Makespan; math.Abs(cs.OutputTokPerSec-want) > 1e-9*want {
			t.Errorf("%s: out tok/s %v, want %v", pol.Name, cs.OutputTokPerSec, want)
		}
	}
}

// TestLeastOutstandingHand: a holds replica 0 for seconds; b, c and d each
// finish within 30 ms, so each finds replica 1 idle and goes there, where
// round robin would send c back to replica 0.
func TestLeastOutstandingHand(t *testing.T) {
	cfg := Config{Policy: policy(t, Continuous), TotalBlocks: 1000, BlockSize: 16, Devices: 1, Step: testTimer}
	reqs := []*traces.Request{
		req("a", 0, 10, 500),
		req("b", 100, 10, 1),
		req("c", 300, 10, 1),
		req("d", 500, 10, 1),
	}
	cs, _ := mustRunCluster(t, onePool(2, LeastOutstanding, cfg), newSliceReader(reqs))
	if got := cs.Pools[0].Replicas; got[0].Requests != 1 || got[1].Requests != 3 {
		t.Errorf("requests per replica %d %d, want 1 3", got[0].Requests, got[1].Requests)
	}
}

// firstDiff returns the first line that differs between a and b, from a
// then from b.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return string(la[i]) + "\n" + string(lb[i])
		}
	}
	return "lengths differ"
}

// TestAffinityTies: among replicas holding the same leading run, the
// fewest outstanding wins, then the lowest index.
func TestAffinityTies(t *testing.T) {
	a := newRouter(&PoolConfig{Replicas: 3, Router: PrefixAffinity, AffinityLoadCap: 10}, 100).(*affinity)
	r := &traces.Request{PrefixHashes: []uint64{1, 2}}
	a.recs[0].record(chainKeys(nil, r.PrefixHashes))
	a.recs[2].record(chainKeys(nil, r.PrefixHashes))
	for _, tc := range []struct {
		load []int64
		want int
	}{{[]int64{2, 0, 1}, 2}, {[]int64{1, 0, 1}, 0}, {[]int64{0, 0, 3}, 0}} {
		if got := a.route(r, tc.load); got != tc.want {
			t.Errorf("load %v: picked %d, want %d", tc.load, got, tc.want)
		}
	}
	// A longer run wins over a lighter load.
	long := &traces.Request{PrefixHashes: []uint64{1, 2, 3}}
	a.recs[1].record(chainKeys(nil, long.PrefixHashes))
	if got := a.route(long, []int64{0, 5, 0}); got != 1 {
		t.Errorf("longest run: picked %d, want 1", got)
	}
}

// TestAffinityClusterHand: requests sharing a prefix follow it to the
// replica that got it first until that replica is overloaded. Three
// replicas, load cap 1, answers long enough that nothing finishes: a goes
// to replica 0 and b (prefix P) to replica 1, both by least outstanding;
// b2 follows P to replica 1 (loads 1 1 0: 1 < mean 2/3 + 1); b3 finds
// replica 1 overloaded (loads 1 2 0: 2 ≥ mean 1 + 1) and goes to the
// least loaded, replica 2.
func TestAffinityClusterHand(t *testing.T) {
	cfg := Config{Policy: policy(t, Continuous), TotalBlocks: 1000, BlockSize: 16, Devices: 1, Step: testTimer, PrefixCaching: true}
	reqs := []*traces.Request{
		req("a", 0, 32, 1000, 11, 12),
		req("b", 10, 32, 1000, 21, 22),
		req("b2", 20, 32, 1000, 21, 22),
		req("b3", 30, 32, 1000, 21, 22),
	}
	cc := onePool(3, PrefixAffinity, cfg)
	cc.Pools[0].AffinityLoadCap = 1
	cs, _ := mustRunCluster(t, cc, newSliceReader(reqs))
	var got []int64
	for _, r := range cs.Pools[0].Replicas {
		got = append(got, r.Requests)
	}
	if !slices.Equal(got, []int64{1, 2, 1}) {
		t.Errorf("requests per replica %v, want [1 2 1]", got)
	}
}
