package plan

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/servesim/servesim/model"
)

// deploy/gpu/run.sh starts engine.py with --kv-memory-fraction F: the
// share of the memory left after the weights that holds the KV cache
// and activations. gpu-plan.toml's gpu_memory_utilization U is the share
// of all memory for weights, KV cache and activations (vLLM's meaning),
// so the simulated cache matches the engine's only where U·M − W =
// F·(M − W), on each GPU run.sh sweeps over the plan.
func TestDeployGPUPlanMemoryMatchesEngineFlag(t *testing.T) {
	script, err := os.ReadFile("../deploy/gpu/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	flags := regexp.MustCompile(`--kv-memory-fraction ([0-9.]+)`).FindAllSubmatch(script, -1)
	if len(flags) == 0 {
		t.Fatal("run.sh: no --kv-memory-fraction")
	}
	p, err := Load("../deploy/gpu/gpu-plan.toml")
	if err != nil {
		t.Fatal(err)
	}
	cat := model.DefaultCatalog()
	for _, f := range flags {
		frac, err := strconv.ParseFloat(string(f[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, device := range []string{"H200-141G", "H100-SXM-80G"} {
			q := *p
			q.Device.Model = device
			r, err := q.Resolve(cat)
			if err != nil {
				t.Fatal(err)
			}
			m, w := r.Hardware.MemoryBytes, r.Capacity.WeightBytesPerDevice
			sim, engine := p.Device.GPUMemoryUtilization*m-w, frac*(m-w)
			if rel := sim/engine - 1; math.Abs(rel) > 0.02 {
				t.Errorf("%s: gpu_memory_utilization %g leaves %.1f GB beside the weights, the engine's --kv-memory-fraction %g %.1f GB (%+.1f%%); want U ≈ %.3f",
					device, p.Device.GPUMemoryUtilization, sim/1e9, frac, engine/1e9, 100*rel, (w+frac*(m-w))/m)
			}
		}
	}
}
