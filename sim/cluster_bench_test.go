package sim

import "testing"

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
				cc := onePool(4, router, cfg)
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
			})
		}
	}
}
