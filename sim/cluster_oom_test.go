package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// clusterOOMTrace, round robin over two replicas of a fixed batch of 2
// with 20 blocks of 16 tokens: replica 0 runs {L, l}, L decoding long
// tokens (200: until 2.2 s; 44: its last step runs from 496 to 507 ms);
// replica 1 serves {s, s2}, then {D, F} (13 blocks each) forms when F
// arrives at 501 ms and does not fit. C and E wait behind L on replica 0.
func clusterOOMTrace(long int32) []*traces.Request {
	return []*traces.Request{
		req("L", 0, 10, long), req("s", 0, 10, 2), req("l", 0, 10, 5), req("s2", 0, 10, 2),
		req("C", 500, 10, 2), req("D", 500, 100, 100), req("E", 501, 10, 2), req("F", 501, 100, 100),
		req("G", 3000, 10, 2), req("H", 3000, 10, 2),
	}
}

// TestClusterOOMSkipMatchesStepping: when one replica's static batch runs
// out of memory, the run ends at that moment on every replica, with event
// skipping as when stepping: no replica serves a request that it would
// only have finished after the OOM (L, whether its own stretch or its last
// step runs past it), and both modes report the same rows, error and
// summary. Replica 0, still decoding L then, is measured up to the OOM:
// busy throughout, its KV occupancy within what it held.
func TestClusterOOMSkipMatchesStepping(t *testing.T) {
	for _, long := range []int32{200, 44} {
		t.Run(fmt.Sprint(long), func(t *testing.T) { checkClusterOOM(t, clusterOOMTrace(long)) })
	}
}

func checkClusterOOM(t *testing.T, reqs []*traces.Request) {
	var ws [2]*memWriter
	var sums [2]*ClusterSummary
	var errs [2]error
	for i, noSkip := range []bool{false, true} {
		cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}, 20, noSkip)
		cc := ClusterConfig{Pools: []PoolConfig{{Name: "p", Replicas: 2, Router: RoundRobin, Replica: cfg}}}
		ws[i] = &memWriter{}
		sums[i], errs[i] = RunCluster(t.Context(), cc, newSliceReader(reqs), ws[i])
		var oom *OOMError
		if !errors.As(errs[i], &oom) {
			t.Fatalf("noSkip=%v: err = %v, want *OOMError", noSkip, errs[i])
		}
	}
	if errs[0].Error() != errs[1].Error() {
		t.Errorf("errors differ:\n%v\n%v", errs[0], errs[1])
	}
	oomAt := int64(math.Round(sums[1].OOM.Time * 1e9))
	for i, w := range ws {
		inputOrder(t, w, []string{"L", "s", "l", "s2", "C", "D", "E", "F", "G", "H"})
		for _, r := range w.rows {
			served := r.Error == ""
			if served && r.LastToken > oomAt {
				t.Errorf("mode %d: %s served, last token at %d ns, after the OOM at %d ns", i, r.ID, r.LastToken, oomAt)
			}
			if !served && !strings.HasPrefix(r.Error, NotRunPrefix) {
				t.Errorf("mode %d: %s: error %q", i, r.ID, r.Error)
			}
		}
		if r := w.byID["l"]; r.Error != "" {
			t.Errorf("mode %d: l, finished at 78 ms, not served: %q", i, r.Error)
		}
	}
	for i, sum := range sums {
		if want := sum.OOM.Time - sum.FirstArrival; math.Abs(sum.Makespan-want) > 1e-9 {
			t.Errorf("mode %d: makespan %v s, want %v s: up to the OOM, with replica 0 still working", i, sum.Makespan, want)
		}
		for j, r := range sum.Pools[0].Replicas {
			if r.BusySeconds > r.Makespan+1e-9 || r.KV.MeanUsed > float64(r.KV.MaxUsed) {
				t.Errorf("mode %d: replica %d busy %v s of %v s, KV mean %v blocks, max %d: figures past the end of the run",
					i, j, r.BusySeconds, r.Makespan, r.KV.MeanUsed, r.KV.MaxUsed)
			}
		}
		if r := sum.Pools[0].Replicas[0]; math.Abs(r.BusySeconds-r.Makespan) > 1e-9 {
			t.Errorf("mode %d: replica 0 busy %v s of %v s, want all of it", i, r.BusySeconds, r.Makespan)
		}
	}
	if sums[0].Stretches == 0 {
		t.Errorf("no stretches with skipping on")
	}
	if string(ws[0].bytes()) != string(ws[1].bytes()) {
		t.Errorf("rows differ:\nskipping\n%s\nstepping\n%s", ws[0].bytes(), ws[1].bytes())
	}
	a, b := comparable(sums[0].Summary), comparable(sums[1].Summary)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("summaries differ:\nskipping %+v\nstepping %+v", a, b)
	}
	for i := range sums[0].Pools[0].Replicas {
		a, b := comparable(sums[0].Pools[0].Replicas[i]), comparable(sums[1].Pools[0].Replicas[i])
		if !reflect.DeepEqual(a, b) {
			t.Errorf("replica %d summaries differ:\nskipping %+v\nstepping %+v", i, a, b)
		}
	}
}

// comparable is s without what differs by design between skipping and
// stepping (how many stretches were jumped over), and with its sums of
// step times rounded to the nanosecond.
func comparable(s Summary) Summary {
	s.Stretches, s.StretchSteps = 0, 0
	s.KV.Series = nil
	round := func(x float64) float64 { return math.Round(x*1e9) / 1e9 }
	s.BusySeconds, s.Utilization, s.KV.MeanUsed, s.KV.MeanUtil = round(s.BusySeconds), round(s.Utilization), round(s.KV.MeanUsed), round(s.KV.MeanUtil)
	if s.EnergyJoules != traces.Missing {
		s.EnergyJoules = round(s.EnergyJoules)
	}
	return s
}

// TestClusterOOMSkipMatchesSteppingRandom compares skipping with stepping
// on random clusters of static replicas, alone or beside a continuous
// pool, most of which run out of memory: rows, error and summary agree.
func TestClusterOOMSkipMatchesSteppingRandom(t *testing.T) {
	ooms, bad := 0, 0
	for seed := uint64(1); seed <= 150 && bad < 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		var tm StepTimer = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6}
		switch rng.IntN(4) {
		case 0:
			tm = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6, Admit: Admission{Delay: 0.007}}
		case 1:
			tm = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6, Cq: 4e-3} // dearer steps after a prompt
		case 2:
			tm = realRoofline
		}
		static := PolicyConfig{Name: Fixed, BatchSize: 2 + rng.IntN(4), MaxWaitMs: 20}
		if rng.IntN(2) == 0 {
			static = PolicyConfig{Name: TokenBudget, TokenBudget: 200 + rng.IntN(400), MaxWaitMs: 20}
		}
		replica := func(p PolicyConfig, noSkip bool) Config {
			return Config{Policy: p, BlockSize: 16, TotalBlocks: 20 + rng.IntN(30), Step: tm, Devices: 1,
				NoSkip: noSkip, CheckInvariants: true, PrefixCaching: rng.IntN(2) == 0}
		}
		router := Routers[rng.IntN(len(Routers))]
		reqs := prefixWorkload(seed, 60, 30, 200, 120, 16)
		var ws [2]*memWriter
		var sums [2]*ClusterSummary
		var errs [2]error
		for i, noSkip := range []bool{false, true} {
			// The same draws for both modes.
			rng = rand.New(rand.NewPCG(seed, 12))
			cc := ClusterConfig{Pools: []PoolConfig{{Replicas: 2 + rng.IntN(3), Router: router, Replica: replica(static, noSkip)}}}
			if rng.IntN(3) == 0 {
				cont := PolicyConfig{Name: Continuous, MaxNumSeqs: 4, MaxNumBatchedTokens: 256}
				cc.Threshold = 150
				cc.Pools = append(cc.Pools, PoolConfig{Replicas: 1 + rng.IntN(2), Router: router, Replica: replica(cont, noSkip)})
			}
			ws[i] = &memWriter{}
			sums[i], errs[i] = RunCluster(t.Context(), cc, newSliceReader(reqs), ws[i])
			if _, ok := errs[i].(*OOMError); errs[i] != nil && !ok {
				t.Fatalf("seed %d: %v", seed, errs[i])
			}
		}
		if fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
			t.Errorf("seed %d: errors differ: %v vs %v", seed, errs[0], errs[1])
			bad++
			continue
		}
		if errs[0] != nil {
			ooms++
		}
		for id, ra := range ws[0].byID {
			rb := ws[1].byID[id]
			if abs(ra.FirstToken-rb.FirstToken) > 2 || abs(ra.LastToken-rb.LastToken) > 2 || ra.Error != rb.Error || ra.Preemptions != rb.Preemptions {
				t.Errorf("seed %d: request %s: first %d/%d last %d/%d error %q/%q", seed, id,
					ra.FirstToken, rb.FirstToken, ra.LastToken, rb.LastToken, ra.Error, rb.Error)
				bad++
				break
			}
		}
		a, b := sums[0].Summary, sums[1].Summary
		if a.Requests != b.Requests || a.Completed != b.Completed || a.Rejected != b.Rejected || a.OutputTokens != b.OutputTokens ||
			a.Steps != b.Steps || a.E2E.N != b.E2E.N || math.Abs(a.Makespan-b.Makespan) > 1e-8 ||
			math.Abs(a.BusySeconds-b.BusySeconds) > 1e-6 || math.Abs(a.E2E.Mean-b.E2E.Mean) > 1e-8 {
			t.Errorf("seed %d: summaries differ:\nskipping %+v\nstepping %+v", seed, a, b)
			bad++
		}
	}
	t.Logf("%d of the runs ran out of memory", ooms)
	if ooms < 30 {
		t.Errorf("only %d of the runs ran out of memory", ooms)
	}
}

// TestClusterOOMNamesTheReplica: batches are counted per replica, so an
// OOM in a cluster says which replica's batch did not fit, in the error
// and in the reports; a one-replica cluster's reads as Run's.
func TestClusterOOMNamesTheReplica(t *testing.T) {
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}, 20, false)
	cc := ClusterConfig{Pools: []PoolConfig{{Name: "p", Replicas: 2, Router: RoundRobin, Replica: cfg}}}
	sum, err := RunCluster(t.Context(), cc, newSliceReader(clusterOOMTrace(200)), &memWriter{})
	var oom *OOMError
	if !errors.As(err, &oom) || !strings.HasPrefix(err.Error(), "sim: out of KV memory on replica 2 of pool p: batch 2 ") {
		t.Fatalf("err = %v, want an OOM of replica 2's batch 2", err)
	}
	if sum.OOM == nil || sum.OOM.Replica != "replica 2 of pool p" || sum.Pools[0].Replicas[1].OOM == nil ||
		sum.Pools[0].Replicas[1].OOM.Replica != "replica 2 of pool p" {
		t.Errorf("reports %+v, %+v: want replica 2 of pool p named", sum.OOM, sum.Pools[0].Replicas[1].OOM)
	}

	reqs := []*traces.Request{req("A", 0, 10, 2), req("C", 0, 100, 210)}
	_, _, runErr := run(t, cfg, reqs)
	_, clErr := RunCluster(t.Context(), onePool(1, RoundRobin, cfg), newSliceReader(reqs), &memWriter{})
	if runErr == nil || clErr == nil || runErr.Error() != clErr.Error() {
		t.Errorf("one replica: %v; Run: %v; want the same OOM", clErr, runErr)
	}
}
