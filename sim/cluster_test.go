package sim

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

func mustRunCluster(t testing.TB, cc ClusterConfig, in traces.Reader) (*ClusterSummary, *memWriter) {
	t.Helper()
	w := &memWriter{}
	sum, err := RunCluster(t.Context(), cc, in, w)
	if err != nil {
		t.Fatalf("RunCluster: %v", err)
	}
	return sum, w
}

func onePool(n int, router string, cfg Config) ClusterConfig {
	return ClusterConfig{Pools: []PoolConfig{{Name: "all", Replicas: n, Router: router, Replica: cfg}}}
}

// TestClusterOneReplicaMatchesRun: a one-replica cluster writes the same
// rows, byte for byte and in the same order, as Run; its replica summary
// equals Run's and so does its aggregate (which has no KV series).
func TestClusterOneReplicaMatchesRun(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"continuous", Config{Policy: policy(t, Continuous), TotalBlocks: 20000, Step: realTimer}},
		{"continuous-noskip", Config{Policy: policy(t, Continuous), TotalBlocks: 20000, Step: realTimer, NoSkip: true}},
		{"continuous-fast", Config{Policy: policy(t, Continuous), TotalBlocks: 20000, Step: fastTimer}},
		{"fixed", Config{Policy: PolicyConfig{Name: Fixed, BatchSize: 16, MaxWaitMs: 20}, TotalBlocks: 20000, Step: realTimer}},
	} {
		cfg := tc.cfg
		cfg.BlockSize, cfg.Devices = 16, 1
		cfg.Power = func(u float64) float64 { return 100 + 600*u }
		want, ww := mustRun(t, cfg, azure)
		for _, router := range Routers {
			t.Run(tc.name+"/"+router, func(t *testing.T) {
				got, gw := mustRunCluster(t, onePool(1, router, cfg), newSliceReader(azure))
				if !bytes.Equal(ww.bytes(), gw.bytes()) {
					t.Fatalf("rows differ from Run")
				}
				if rep := got.Pools[0].Replicas[0]; !reflect.DeepEqual(rep, *want) {
					t.Errorf("replica summary\n%+v\nwant Run's\n%+v", rep, *want)
				}
				w := *want
				w.KV.Series = nil
				if !reflect.DeepEqual(got.Summary, w) || !reflect.DeepEqual(got.Pools[0].Summary, w) {
					t.Errorf("aggregate\n%+v\nwant Run's\n%+v", got.Summary, w)
				}
			})
		}
	}
}

func TestClusterRoundRobinEven(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")
	cfg := DefaultConfig()
	cfg.Step, cfg.TotalBlocks = realTimer, 20000
	for _, n := range []int{2, 3, 4, 7} {
		sum, w := mustRunCluster(t, onePool(n, RoundRobin, cfg), newSliceReader(azure))
		if len(w.rows) != len(azure) || sum.Completed != int64(len(azure)) || sum.Requests != int64(len(azure)) {
			t.Fatalf("n=%d: %d rows, %+v", n, len(w.rows), sum.Summary)
		}
		lo := int64(len(azure) / n)
		for i, r := range sum.Pools[0].Replicas {
			if r.Requests != lo && r.Requests != lo+1 {
				t.Errorf("n=%d: replica %d got %d requests, want %d or %d", n, i, r.Requests, lo, lo+1)
			}
		}
		checkAggregate(t, sum)
	}
}

// checkAggregate checks the aggregation rules of ClusterSummary.
func checkAggregate(t *testing.T, cs *ClusterSummary) {
	t.Helper()
	var req, done, dist int64
	var busy, dev float64
	nRep := 0
	for _, p := range cs.Pools {
		var pReq int64
		for _, r := range p.Replicas {
			nRep++
			pReq += r.Requests
			req += r.Requests
			done += r.Completed
			dist += r.E2E.N
			busy += r.BusySeconds
			dev += r.DeviceSeconds
			if r.Makespan != cs.Makespan || r.FirstArrival != cs.FirstArrival {
				t.Errorf("replica window %v+%v, cluster %v+%v", r.FirstArrival, r.Makespan, cs.FirstArrival, cs.Makespan)
			}
			if math.Abs(r.Utilization-r.BusySeconds/cs.Makespan) > 1e-9 {
				t.Errorf("replica utilisation %v, busy %v over %v", r.Utilization, r.BusySeconds, cs.Makespan)
			}
		}
		if p.Requests != pReq {
			t.Errorf("pool %s: %d requests, replicas sum to %d", p.Name, p.Requests, pReq)
		}
	}
	if cs.Requests != req || cs.Completed != done || cs.E2E.N != dist {
		t.Errorf("aggregate %d/%d/%d, replicas %d/%d/%d", cs.Requests, cs.Completed, cs.E2E.N, req, done, dist)
	}
	if math.Abs(cs.BusySeconds-busy) > 1e-6 || math.Abs(cs.DeviceSeconds-dev) > 1e-6 ||
		math.Abs(cs.Utilization-busy/(float64(nRep)*cs.Makespan)) > 1e-9 {
		t.Errorf("busy %v device-s %v util %v; replicas %v %v", cs.BusySeconds, cs.DeviceSeconds, cs.Utilization, busy, dev)
	}
}

// burstyWorkload: bursts of size requests arriving within 20 ms every gap
// seconds, 80% short answers (20 tokens) and 20% long ones (1,000).
func burstyWorkload(seed uint64, bursts, size int, gap float64) []*traces.Request {
	rng := rand.New(rand.NewPCG(seed, 3))
	var reqs []*traces.Request
	for b := range bursts {
		start := float64(b) * gap * 1e3
		var at []float64
		for range size {
			at = append(at, start+rng.Float64()*20)
		}
		slices.Sort(at)
		for _, a := range at {
			out := int32(20)
			if rng.IntN(5) == 0 {
				out = 1000
			}
			reqs = append(reqs, req(strconv.Itoa(len(reqs)), a, int32(100+rng.IntN(400)), out))
		}
	}
	return reqs
}

// TestLeastOutstandingBeatsRoundRobin: with bursts of mixed lengths, round
// robin piles long requests onto some replicas while others sit idle;
// least outstanding sees that and has a lower P99 TTFT and E2E.
func TestLeastOutstandingBeatsRoundRobin(t *testing.T) {
	reqs := burstyWorkload(5, 100, 8, 1)
	cfg := DefaultConfig()
	cfg.Policy.MaxNumSeqs = 4 // a small batch, so that long requests hold slots and queues form
	cfg.Step, cfg.TotalBlocks = realTimer, 20000
	res := map[string]*ClusterSummary{}
	for _, router := range []string{RoundRobin, LeastOutstanding} {
		sum, _ := mustRunCluster(t, onePool(4, router, cfg), newSliceReader(reqs))
		res[router] = sum
		t.Logf("%s: P99 TTFT %.3fs E2E %.3fs, mean E2E %.3fs", router, sum.TTFT.P99, sum.E2E.P99, sum.E2E.Mean)
	}
	rr, lo := res[RoundRobin], res[LeastOutstanding]
	if !(lo.TTFT.P99 < 0.5*rr.TTFT.P99) || !(lo.E2E.P99 < 0.9*rr.E2E.P99) {
		t.Errorf("least outstanding P99 TTFT %.3fs E2E %.3fs, round robin %.3fs %.3fs: want clearly lower", lo.TTFT.P99, lo.E2E.P99, rr.TTFT.P99, rr.E2E.P99)
	}
}

// TestPrefixAffinityRaisesHitRate: on the Mooncake conversation trace,
// where turns of a conversation share their prefix, sending a request
// where its prefix was sent before raises the prefix-cache hit rate over
// round robin and least outstanding. Prompts average 12k tokens and the
// turns of a conversation come minutes apart, so the replicas get a large
// KV memory (1.6M tokens each, a TP group) for the reuse to survive.
func TestPrefixAffinityRaisesHitRate(t *testing.T) {
	if testing.Short() {
		t.Skip("three Mooncake runs; skipped in -short mode")
	}
	moon := loadMooncake(t, "mooncake/conversation_trace.jsonl")
	cfg := DefaultConfig()
	cfg.Step, cfg.TotalBlocks, cfg.PrefixCaching = fastTimer, 100000, true
	res := map[string]*ClusterSummary{}
	for _, router := range Routers {
		sum, _ := mustRunCluster(t, onePool(4, router, cfg), mooncakeReader(moon))
		res[router] = sum
		var reqs []string
		for _, r := range sum.Pools[0].Replicas {
			reqs = append(reqs, fmt.Sprint(r.Requests))
		}
		t.Logf("%s: hit rate %.3f, P99 TTFT %.3fs, mean TTFT %.3fs, requests per replica %s",
			router, sum.PrefixHitRate, sum.TTFT.P99, sum.TTFT.Mean, strings.Join(reqs, " "))
	}
	aff := res[PrefixAffinity]
	for _, other := range []string{RoundRobin, LeastOutstanding} {
		if !(aff.PrefixHitRate > 1.5*res[other].PrefixHitRate) || !(aff.TTFT.Mean < res[other].TTFT.Mean) {
			t.Errorf("prefix_affinity hit rate %.3f mean TTFT %.3fs, %s %.3f %.3fs: want a clearly higher hit rate, lower TTFT",
				aff.PrefixHitRate, aff.TTFT.Mean, other, res[other].PrefixHitRate, res[other].TTFT.Mean)
		}
	}
	// The load cap keeps affinity from starving replicas.
	for i, r := range aff.Pools[0].Replicas {
		if r.Requests < int64(len(moon))/8 {
			t.Errorf("replica %d got only %d of %d requests", i, r.Requests, len(moon))
		}
	}
}

// TestPoolsSplitByLength: requests at or below the threshold run on the
// short pool, the rest on the long pool, each with its own router.
func TestPoolsSplitByLength(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")
	cfg := DefaultConfig()
	cfg.Step, cfg.TotalBlocks = realTimer, 20000
	for _, promptOnly := range []bool{false, true} {
		const threshold = 1500
		cc := ClusterConfig{Threshold: threshold, PromptOnly: promptOnly, Pools: []PoolConfig{
			{Name: "short", Replicas: 2, Router: RoundRobin, Replica: cfg},
			{Name: "long", Replicas: 3, Router: LeastOutstanding, Replica: cfg},
		}}
		var short, long, shortIn, longIn int64
		for _, r := range azure {
			n := int64(max(r.PromptTokens, 1))
			if !promptOnly {
				n += int64(max(r.OutputTokens, 1))
			}
			if n <= threshold {
				short++
				shortIn += int64(max(r.PromptTokens, 1))
			} else {
				long++
				longIn += int64(max(r.PromptTokens, 1))
			}
		}
		sum, _ := mustRunCluster(t, cc, newSliceReader(azure))
		ps, pl := sum.Pools[0], sum.Pools[1]
		if ps.Name != "short" || pl.Name != "long" || len(ps.Replicas) != 2 || len(pl.Replicas) != 3 || ps.Router != RoundRobin {
			t.Fatalf("pools %+v %+v", ps.Name, pl.Name)
		}
		if ps.Requests != short || pl.Requests != long || ps.InputTokens != shortIn || pl.InputTokens != longIn {
			t.Errorf("promptOnly=%v: short pool %d requests %d tokens, long %d %d; want %d %d, %d %d",
				promptOnly, ps.Requests, ps.InputTokens, pl.Requests, pl.InputTokens, short, shortIn, long, longIn)
		}
		if ps.E2E.N+pl.E2E.N != sum.E2E.N || sum.Completed != int64(len(azure)) {
			t.Errorf("pools have %d + %d latencies, cluster %d", ps.E2E.N, pl.E2E.N, sum.E2E.N)
		}
		checkAggregate(t, sum)
		t.Logf("promptOnly=%v: short %d req P99 TTFT %.3fs util %.2f; long %d req P99 TTFT %.3fs util %.2f; device-s %.0f",
			promptOnly, ps.Requests, ps.TTFT.P99, ps.Utilization, pl.Requests, pl.TTFT.P99, pl.Utilization, sum.DeviceSeconds)
	}
}

// TestPoolsSplitByCappedLength: the split counts the output the short
// pool's replicas will run (capped by their MaxNewTokens), not the trace's
// raw output length, whatever the long pool caps.
func TestPoolsSplitByCappedLength(t *testing.T) {
	reqs := synthWorkload(5, 300, 5)
	reqs = slices.DeleteFunc(reqs, func(r *traces.Request) bool { return r.ID == "17" }) // the rejected one
	const threshold, shortCap = 500, 40
	for _, longCap := range []int{0, 10, 100} {
		short := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 300, Step: realTimer, Devices: 1, MaxNewTokens: shortCap}
		long := short
		long.MaxNewTokens = longCap
		cc := ClusterConfig{Threshold: threshold, Pools: []PoolConfig{
			{Name: "short", Replicas: 2, Router: RoundRobin, Replica: short},
			{Name: "long", Replicas: 2, Router: RoundRobin, Replica: long},
		}}
		var nShort, nLong, outShort, capped int64
		for _, r := range reqs {
			prompt, raw := int64(max(r.PromptTokens, 1)), int64(max(r.OutputTokens, 1))
			out := min(raw, shortCap)
			if prompt+raw > threshold && prompt+out <= threshold {
				capped++ // long by the trace, short as run
			}
			if prompt+out <= threshold {
				nShort++
				outShort += out
			} else {
				nLong++
			}
		}
		if capped == 0 {
			t.Fatal("workload has no request that the cap makes short")
		}
		sum, _ := mustRunCluster(t, cc, newSliceReader(reqs))
		ps, pl := sum.Pools[0], sum.Pools[1]
		if ps.Requests != nShort || pl.Requests != nLong || ps.OutputTokens != outShort {
			t.Errorf("long cap %d: short pool %d requests %d output tokens, long %d; want %d %d, %d (%d short only once capped)",
				longCap, ps.Requests, ps.OutputTokens, pl.Requests, nShort, outShort, nLong, capped)
		}
	}
}

// TestClusterScalesWithRate (metamorphic): the same requests with time
// compressed N-fold (N× the arrival rate) on N replicas are served about
// as fast as on one replica at 1×, and each replica completes the same
// requests per second. (Busy fractions differ: a routed share of a Poisson
// stream is smoother than the stream, so batches are smaller and the device
// idles less.)
func TestClusterScalesWithRate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Step, cfg.TotalBlocks = realTimer, 20000
	for _, n := range []int{2, 4, 8} {
		in := newSynthReader(3000*n, 2)
		var reqs, fast []*traces.Request
		for i := 0; in.Next(); i++ {
			r := in.At().Clone()
			r.ID = strconv.Itoa(i)
			reqs = append(reqs, r)
			f := r.Clone()
			f.Arrival /= int64(n)
			fast = append(fast, f)
		}
		base, _ := mustRunCluster(t, onePool(1, RoundRobin, cfg), newSliceReader(reqs))
		for _, router := range []string{RoundRobin, LeastOutstanding} {
			sum, _ := mustRunCluster(t, onePool(n, router, cfg), newSliceReader(fast))
			t.Logf("%d×%s: mean E2E %.3fs (1×: %.3fs), P50 TTFT %.4fs (%.4fs), mean TPOT %.5fs (%.5fs), util %.2f (%.2f)",
				n, router, sum.E2E.Mean, base.E2E.Mean, sum.TTFT.P50, base.TTFT.P50, sum.TPOT.Mean, base.TPOT.Mean, sum.Utilization, base.Utilization)
			for _, c := range []struct {
				name      string
				got, want float64
				tol       float64
			}{
				{"mean E2E", sum.E2E.Mean, base.E2E.Mean, 0.1},
				{"mean TPOT", sum.TPOT.Mean, base.TPOT.Mean, 0.1},
				{"P50 TTFT", sum.TTFT.P50, base.TTFT.P50, 0.15},
				{"requests/s per replica", sum.ReqPerSec / float64(n), base.ReqPerSec, 0.01},
			} {
				if math.Abs(c.got/c.want-1) > c.tol {
					t.Errorf("%d replicas (%s) at %d× rate: %s %.4g, one replica %.4g", n, router, n, c.name, c.got, c.want)
				}
			}
		}
	}
}

// TestClusterSkipMatchesStepping: a 4-replica cluster with event skipping
// and one stepping each iteration agree on every request within 1 µs.
func TestClusterSkipMatchesStepping(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")
	moon := loadMooncake(t, "mooncake/conversation_trace.jsonl")
	tight := policy(t, Continuous)
	tight.MaxNumSeqs, tight.MaxNumBatchedTokens = 16, 1024
	for _, tc := range []struct {
		name   string
		moon   bool
		router string
		cfg    Config
	}{
		{"azure-rr", false, RoundRobin, Config{Policy: policy(t, Continuous), TotalBlocks: 20000, Step: realTimer}},
		{"azure-lo-fast", false, LeastOutstanding, Config{Policy: policy(t, Continuous), TotalBlocks: 20000, Step: fastTimer}},
		{"azure-lo-tight", false, LeastOutstanding, Config{Policy: tight, TotalBlocks: 400, Step: realRoofline}},
		{"azure-fixed-rr", false, RoundRobin, Config{Policy: PolicyConfig{Name: Fixed, BatchSize: 8, MaxWaitMs: 20}, TotalBlocks: 20000, Step: realTimer}},
		{"mooncake-affinity", true, PrefixAffinity, Config{Policy: policy(t, Continuous), TotalBlocks: 30000, Step: fastTimer, PrefixCaching: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.moon && testing.Short() {
				t.Skip("Mooncake stepping one iteration at a time; skipped in -short mode")
			}
			var outs [2]*memWriter
			var sums [2]*ClusterSummary
			for i, noSkip := range []bool{false, true} {
				cfg := tc.cfg
				cfg.BlockSize, cfg.Devices, cfg.NoSkip = 16, 1, noSkip
				var in traces.Reader = newSliceReader(azure)
				if tc.moon {
					in = mooncakeReader(moon)
				}
				sums[i], outs[i] = mustRunCluster(t, onePool(4, tc.router, cfg), in)
				t.Logf("noSkip=%v: steps %d, iterations %d, preemptions %d, hit rate %.3f, P99 TTFT %.3fs",
					noSkip, sums[i].Steps, sums[i].Steps-sums[i].StretchSteps+sums[i].Stretches, sums[i].Preemptions, sums[i].PrefixHitRate, sums[i].TTFT.P99)
			}
			if sums[0].Stretches == 0 {
				t.Errorf("no stretches with skipping on")
			}
			for i := range sums[0].Pools[0].Replicas {
				if a, b := sums[0].Pools[0].Replicas[i].Requests, sums[1].Pools[0].Replicas[i].Requests; a != b {
					t.Errorf("replica %d: %d requests with skipping, %d stepping", i, a, b)
				}
			}
			compareRuns(t, outs[0], outs[1], 1000)
		})
	}
}

// TestClusterInvariantsAndDeterminism runs every policy on a 3-replica
// cluster with block conservation checked after every step, twice.
func TestClusterInvariantsAndDeterminism(t *testing.T) {
	reqs := synthWorkload(2, 600, 15)
	for name, p := range conformancePolicies(t) {
		for _, router := range Routers {
			t.Run(name+"/"+router, func(t *testing.T) {
				cfg := Config{Policy: p, BlockSize: 16, TotalBlocks: 300, Step: realTimer, Devices: 1, PrefixCaching: true, CheckInvariants: true}
				sum, w := mustRunCluster(t, onePool(3, router, cfg), newSliceReader(reqs))
				if sum.Completed+sum.Rejected != int64(len(reqs)) || len(w.rows) != len(reqs) || sum.Rejected != 1 {
					t.Fatalf("%d completed + %d rejected, %d rows, of %d", sum.Completed, sum.Rejected, len(w.rows), len(reqs))
				}
				_, w2 := mustRunCluster(t, onePool(3, router, cfg), newSliceReader(reqs))
				if !bytes.Equal(w.bytes(), w2.bytes()) {
					t.Errorf("two runs differ")
				}
				checkAggregate(t, sum)
			})
		}
	}
}

func TestClusterEnergyAndDevices(t *testing.T) {
	sum := runHalfPoweredCluster(t)
	if got, want := sum.DeviceSeconds, 2*5*sum.Makespan; math.Abs(got-want) > 1e-9*want {
		t.Errorf("device-seconds %v, want %v", got, want)
	}
	if sum.EnergyJoules != traces.Missing || sum.Pools[1].EnergyJoules != traces.Missing {
		t.Errorf("energy %v with a pool lacking a power model: want missing", sum.EnergyJoules)
	}
	var e float64
	for _, r := range sum.Pools[0].Replicas {
		e += r.EnergyJoules
		if want := 2 * (100 + 500*r.Utilization) * sum.Makespan; math.Abs(r.EnergyJoules-want) > 1e-9*want {
			t.Errorf("replica energy %v, want %v", r.EnergyJoules, want)
		}
	}
	if math.Abs(sum.Pools[0].EnergyJoules-e) > 1e-9*e {
		t.Errorf("pool energy %v, replicas %v", sum.Pools[0].EnergyJoules, e)
	}
}

func TestClusterConfigValidateNamesField(t *testing.T) {
	rep := DefaultConfig()
	rep.Step, rep.TotalBlocks = testTimer, 100
	two := func() ClusterConfig {
		return ClusterConfig{Threshold: 100, Pools: []PoolConfig{
			{Name: "short", Replicas: 1, Router: RoundRobin, Replica: rep},
			{Name: "long", Replicas: 2, Router: PrefixAffinity, Replica: rep},
		}}
	}
	if c := two(); c.Validate() != nil {
		t.Fatal(c.Validate())
	}
	if c := DefaultClusterConfig(rep, 3); c.Validate() != nil {
		t.Fatal(c.Validate())
	}
	for _, tc := range []struct {
		field string
		edit  func(*ClusterConfig)
	}{
		{"ClusterConfig.Threshold", func(c *ClusterConfig) { c.Threshold = -1 }},
		{"ClusterConfig.Pools", func(c *ClusterConfig) { c.Threshold = 0 }},
		{"ClusterConfig.Pools", func(c *ClusterConfig) { c.Pools = c.Pools[:1] }},
		{"ClusterConfig.PromptOnly", func(c *ClusterConfig) { c.Threshold, c.Pools, c.PromptOnly = 0, c.Pools[:1], true }},
		{"ClusterConfig.Pools[1].Replicas", func(c *ClusterConfig) { c.Pools[1].Replicas = 0 }},
		{"ClusterConfig.Pools[0].Router", func(c *ClusterConfig) { c.Pools[0].Router = "random" }},
		{"ClusterConfig.Pools[1].AffinityLoadCap", func(c *ClusterConfig) { c.Pools[1].AffinityLoadCap = 0.5 }},
		{"ClusterConfig.Pools[1].AffinityRecord", func(c *ClusterConfig) { c.Pools[1].AffinityRecord = -1 }},
		{"ClusterConfig.Pools[0].AffinityLoadCap = 2 needs Router prefix_affinity", func(c *ClusterConfig) { c.Pools[0].AffinityLoadCap = 2 }},
		{"ClusterConfig.Pools[0].AffinityRecord = 8 needs Router prefix_affinity", func(c *ClusterConfig) { c.Pools[0].AffinityRecord = 8 }},
		{"ClusterConfig.Pools[1].Replica.TotalBlocks", func(c *ClusterConfig) { c.Pools[1].Replica.TotalBlocks = 0 }},
		{"ClusterConfig.Pools[0].Replica.Step", func(c *ClusterConfig) { c.Pools[0].Replica.Step = nil }},
		{"ClusterConfig.Pools[0].Replica: policy fixed: BatchSize", func(c *ClusterConfig) { c.Pools[0].Replica.Policy = PolicyConfig{Name: Fixed} }},
		{"ClusterConfig.Pools[1].Replica.Decisions", func(c *ClusterConfig) { c.Pools[1].Replica.Decisions = &bytes.Buffer{} }},
		{"ClusterConfig.Pools[1].Name", func(c *ClusterConfig) { c.Pools[1].Name = "short" }},
		{"ClusterConfig.Pools[1].Name", func(c *ClusterConfig) { c.Pools[0].Name, c.Pools[1].Name = "pool1", "" }},
	} {
		c := two()
		tc.edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field) || strings.Count(err.Error(), "sim:") != 1 {
			t.Errorf("%s: got %v", tc.field, err)
		}
		if _, err := RunCluster(t.Context(), c, newSliceReader(nil), nil); err == nil {
			t.Errorf("%s: RunCluster accepted an invalid config", tc.field)
		}
	}
}

func TestClusterInputErrors(t *testing.T) {
	rep := DefaultConfig()
	rep.Step, rep.TotalBlocks = testTimer, 100
	cc := onePool(2, LeastOutstanding, rep)
	if _, err := RunCluster(t.Context(), cc, nil, nil); err == nil {
		t.Error("nil reader accepted")
	}
	reqs := []*traces.Request{req("a", 10, 10, 5), req("b", 5, 10, 5)}
	if _, err := RunCluster(t.Context(), cc, newSliceReader(reqs), nil); err == nil || !strings.Contains(err.Error(), "arrival order") {
		t.Errorf("out of order input: %v", err)
	}
}

func TestHashLRU(t *testing.T) {
	l := newHashLRU(4)
	a := chainKeys(nil, []uint64{1, 2, 3})
	b := chainKeys(nil, []uint64{1, 2, 9, 10})
	l.record(a)
	if got := l.leading(b); got != 2 {
		t.Errorf("leading run %d, want 2 (chained keys share the first two)", got)
	}
	l.record(b) // 1, 2 refreshed; 9, 10 added: 3 is evicted (least recent)
	if got := l.leading(a); got != 2 {
		t.Errorf("after eviction: leading run %d, want 2", got)
	}
	if len(l.index) != 4 || len(l.ent) != 4 {
		t.Errorf("%d keys held, capacity 4", len(l.index))
	}
	if got := l.leading(chainKeys(nil, []uint64{2, 1})); got != 0 {
		t.Errorf("different first hash: leading run %d, want 0", got)
	}
}

func TestRouters(t *testing.T) {
	r := &traces.Request{}
	lo := &leastLoaded{n: 3}
	var got []int
	for range 3 {
		got = append(got, lo.route(r, []int64{0, 0, 0}))
	}
	if !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("least outstanding ties %v: want served in turn", got)
	}
	if i := lo.route(r, []int64{3, 1, 2}); i != 1 {
		t.Errorf("least outstanding picked %d", i)
	}
	a := newRouter(&PoolConfig{Replicas: 3, Router: PrefixAffinity}, 100).(*affinity)
	r.PrefixHashes = []uint64{7, 8, 9}
	first := a.route(r, []int64{1, 0, 1})
	if first != 1 {
		t.Errorf("no affinity yet: picked %d, want the least loaded", first)
	}
	r.PrefixHashes = []uint64{7, 8, 5}
	if i := a.route(r, []int64{1, 2, 1}); i != 1 {
		t.Errorf("affinity picked %d, want 1", i)
	}
	// Replica 1 is overloaded: 5 ≥ 1.5 × mean 7/3 + 1.
	if i := a.route(r, []int64{1, 5, 1}); i == 1 {
		t.Errorf("affinity ignored the load cap")
	}
}

func TestSketchMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all, a, b sketch
	all.exactHigh, a.exactHigh, b.exactHigh = 100, 100, 100
	for i := range 300 {
		v := rng.ExpFloat64()
		all.add(v)
		if i%3 == 0 {
			a.add(v)
		} else {
			b.add(v)
		}
	}
	var m sketch
	m.exactHigh = 100
	m.merge(&a) // exact (100 values)
	m.merge(&b) // histogram
	dm, da := m.dist(), all.dist()
	if dm.N != da.N || dm.Max != da.Max || math.Abs(dm.Mean-da.Mean) > 1e-12 || math.Abs(dm.P99/da.P99-1) > 2*sketchAlpha {
		t.Errorf("merged %+v, direct %+v", dm, da)
	}
}
