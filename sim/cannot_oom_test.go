package sim

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestStaticCanOOM: a static configuration is found unable to run out of
// memory only when its largest batch of the largest requests it admits
// fits; that batch then runs, and where it is found able to, a batch that
// does not fit exists and ends the run with an OOM.
func TestStaticCanOOM(t *testing.T) {
	same := func(n int, prompt, out int32) []*traces.Request {
		reqs := make([]*traces.Request, n)
		for i := range reqs {
			reqs[i] = req(fmt.Sprint(i), 0, prompt, out)
		}
		return reqs
	}
	fixed2 := PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}
	budget64 := PolicyConfig{Name: TokenBudget, TokenBudget: 64, MaxWaitMs: 20}
	for _, tc := range []struct {
		name                  string
		policy                PolicyConfig
		blocks, limit, maxNew int
		worst                 []*traces.Request // the batch that needs the most blocks
		canOOM                bool
	}{
		// Two requests of max_model_len 161 tokens, 160 of them cached
		// (never the last): 2 × 10 blocks.
		{"fixed-fits", fixed2, 20, 161, 0, same(2, 160, 1), false},
		{"fixed-a-token-over", fixed2, 20, 162, 0, same(2, 161, 1), true},
		// A prompt of 99 tokens plus max_new 1000 reserves no more than
		// max_model_len: 161 tokens each (160 cached), then 162.
		{"max-new-fits", fixed2, 20, 161, 1000, same(2, 99, 1), false},
		{"max-new-a-token-over", fixed2, 20, 162, 1000, same(2, 99, 1), true},
		{"fixed-no-limit", fixed2, 20, 0, 0, same(2, 161, 1), true},
		// One request at a time: each one admitted fits the device.
		{"serial", PolicyConfig{Name: Serial}, 20, 0, 0, same(1, 319, 1), false},
		// 32 requests of 2 tokens, one block each.
		{"budget-fits", budget64, 36, 0, 0, same(32, 1, 1), false},
		{"budget-over", budget64, 31, 0, 0, same(32, 1, 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(tc.policy, tc.blocks, false)
			cfg.MaxModelLen, cfg.MaxNewTokens = tc.limit, tc.maxNew
			if got := newEngine(&cfg, traces.Meta{}, nil).canOOM; got != tc.canOOM {
				t.Errorf("canOOM = %v, want %v", got, tc.canOOM)
			}
			sum, _, err := run(t, cfg, tc.worst)
			var oom *OOMError
			if got := errors.As(err, &oom); got != tc.canOOM || sum.Rejected != 0 {
				t.Errorf("worst batch: err = %v, %d rejected; want an OOM: %v, none rejected", err, sum.Rejected, tc.canOOM)
			}
		})
	}
	cont := testConfig(PolicyConfig{Name: Continuous, MaxNumSeqs: 4, MaxNumBatchedTokens: 64}, 1, false)
	if newEngine(&cont, traces.Meta{}, nil).canOOM {
		t.Errorf("continuous batching can OOM: it preempts instead")
	}
}

// TestClusterReplicaThatCannotOOMRunsAsAlone: in a cluster of static
// replicas that can never run out of memory, nothing another replica does
// can end the run, so each replica runs the requests routed to it (round
// robin: every fourth) exactly as alone, its decode stretches not cut at
// the arrivals that reach the others.
func TestClusterReplicaThatCannotOOMRunsAsAlone(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")
	const n = 4
	cfg := Config{Policy: PolicyConfig{Name: Fixed, BatchSize: 8, MaxWaitMs: 50}, BlockSize: 16, TotalBlocks: 20000,
		MaxModelLen: 16384, Step: realTimer, Devices: 1}
	sum, w := mustRunCluster(t, onePool(n, RoundRobin, cfg), newSliceReader(azure))
	for i, rs := range sum.Pools[0].Replicas {
		var mine []*traces.Request
		for j := i; j < len(azure); j += n {
			mine = append(mine, azure[j])
		}
		alone, wa, err := run(t, cfg, mine)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Steps != alone.Steps || rs.Stretches != alone.Stretches || rs.StretchSteps != alone.StretchSteps {
			t.Errorf("replica %d: %d steps, %d in %d stretches; alone %d steps, %d in %d stretches",
				i, rs.Steps, rs.StretchSteps, rs.Stretches, alone.Steps, alone.StretchSteps, alone.Stretches)
		}
		for _, ra := range wa.rows {
			if rc := w.byID[ra.ID]; rc.FirstToken != ra.FirstToken || rc.LastToken != ra.LastToken || rc.Error != ra.Error {
				t.Errorf("replica %d: request %s: first token %d, last %d, error %q; alone %d, %d, %q",
					i, ra.ID, rc.FirstToken, rc.LastToken, rc.Error, ra.FirstToken, ra.LastToken, ra.Error)
				break
			}
		}
	}
}

// TestClusterOOMBesideReplicaThatCannotOOM: a replica that cannot run out
// of memory still stops at another's OOM, and does not cut the others'
// stretches. A fixed batch of 2 (long prompts) decodes {A, B} from 130 to
// 358 ms while s1 and s2 reach the serial replica beside it (short
// prompts); the serial one then decodes L until 2.6 s, and the fixed one
// runs out of memory when {D, F} forms at 501 ms. Skipping and stepping
// agree, L is not served, and {A, B} decode in one stretch: the serial
// replica cannot end the run, whatever reaches it.
func TestClusterOOMBesideReplicaThatCannotOOM(t *testing.T) {
	reqs := []*traces.Request{
		req("A", 0, 60, 20), req("B", 0, 60, 20), req("s1", 150, 10, 2), req("s2", 250, 10, 2),
		req("L", 400, 10, 200), req("D", 500, 100, 100), req("F", 501, 100, 100), req("G", 600, 10, 2),
	}
	var ws [2]*memWriter
	var sums [2]*ClusterSummary
	var errs [2]error
	for i, noSkip := range []bool{false, true} {
		cc := ClusterConfig{Threshold: 50, PromptOnly: true, Pools: []PoolConfig{
			{Name: "short", Replicas: 1, Router: RoundRobin, Replica: testConfig(PolicyConfig{Name: Serial}, 20, noSkip)},
			{Name: "long", Replicas: 1, Router: RoundRobin, Replica: testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}, 20, noSkip)},
		}}
		ws[i] = &memWriter{}
		sums[i], errs[i] = RunCluster(t.Context(), cc, newSliceReader(reqs), ws[i])
		var oom *OOMError
		if !errors.As(errs[i], &oom) || oom.Report.Time != 0.501 {
			t.Fatalf("noSkip=%v: err = %v, want an OOM at 501 ms", noSkip, errs[i])
		}
		if r := ws[i].byID["L"]; r.Error == "" {
			t.Errorf("noSkip=%v: L served, last token at %d ns, after the OOM", noSkip, r.LastToken)
		}
		for _, id := range []string{"A", "B", "s1", "s2"} {
			if r := ws[i].byID[id]; r.Error != "" {
				t.Errorf("noSkip=%v: %s not served: %q", noSkip, id, r.Error)
			}
		}
	}
	if string(ws[0].bytes()) != string(ws[1].bytes()) {
		t.Errorf("rows differ:\nskipping\n%s\nstepping\n%s", ws[0].bytes(), ws[1].bytes())
	}
	for p := range sums[0].Pools {
		a, b := comparable(sums[0].Pools[p].Replicas[0]), comparable(sums[1].Pools[p].Replicas[0])
		if !reflect.DeepEqual(a, b) {
			t.Errorf("pool %d summaries differ:\nskipping %+v\nstepping %+v", p, a, b)
		}
	}
	if long := sums[0].Pools[1].Replicas[0]; long.Stretches != 1 {
		t.Errorf("fixed replica: %d stretches over {A, B}, want 1: cut at arrivals on the serial replica, which cannot end the run", long.Stretches)
	}
}
