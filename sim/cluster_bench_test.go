package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// BenchmarkClusterAzureConv runs the Azure 2023 conversation trace (19,366
// requests) on 4 replicas behind each router, with and without event
// skipping. The cluster cuts every busy replica's decode stretch at each
// arrival, so it runs more iterations than one replica would.
func BenchmarkClusterAzureConv(b *testing.B) {
	reqs := loadAzure(b, "azure2023/AzureLLMInferenceTrace_conv.csv")
	for _, router := range Routers {
		for _, noSkip := range []bool{false, true} {
			name := router + "/skip"
			if noSkip {
				name = router + "/noskip"
			}
			b.Run(name, func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Step, cfg.TotalBlocks, cfg.NoSkip = realTimer, 20000, noSkip
				benchCluster(b, onePool(4, router, cfg), reqs)
			})
		}
	}
}

// BenchmarkClusterStaticAzureConv runs the same trace at its own rate on 16
// replicas of fixed batches of 8 that can never run out of KV memory (8
// requests of at most max_model_len 16,384 tokens reserve 8,192 of the
// 20,000 blocks): no replica's OOM can end the run, so a replica's decode
// stretch runs to its next completion whatever the others do.
func BenchmarkClusterStaticAzureConv(b *testing.B) {
	reqs := loadAzure(b, "azure2023/AzureLLMInferenceTrace_conv.csv")
	for _, noSkip := range []bool{false, true} {
		name := "skip"
		if noSkip {
			name = "noskip"
		}
		b.Run(name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Policy = PolicyConfig{Name: Fixed, BatchSize: 8, MaxWaitMs: 50}
			cfg.Step, cfg.TotalBlocks, cfg.MaxModelLen, cfg.NoSkip = realTimer, 20000, 16384, noSkip
			benchCluster(b, onePool(16, LeastOutstanding, cfg), reqs)
		})
	}
}

// benchCluster runs reqs through cc once per iteration, every request
// served, and reports the steps and loop iterations of a run.
func benchCluster(b *testing.B, cc ClusterConfig, reqs []*traces.Request) {
	b.ReportAllocs()
	var steps, iters int64
	for b.Loop() {
		sum, err := RunCluster(b.Context(), cc, newSliceReader(reqs), &countWriter{})
		if err != nil || sum.Completed != int64(len(reqs)) {
			b.Fatalf("%v, %d completed", err, sum.Completed)
		}
		steps, iters = sum.Steps, sum.Steps-sum.StretchSteps+sum.Stretches
	}
	b.ReportMetric(float64(steps), "steps/op")
	b.ReportMetric(float64(iters), "iterations/op")
}
