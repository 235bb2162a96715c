package verify

import (
	"testing"

	"github.com/servesim/servesim/calibrate"
)

// A profile whose engine reported its capacity, without a memory probe,
// still gives the plans that capacity.
func TestProfileKVCarriesTheReportedCapacity(t *testing.T) {
	p := &calibrate.Profile{TensorParallel: 2, BlockSize: 16,
		KVReported: &calibrate.ReportedKV{Source: "vllm:cache_config_info", Tokens: 1600, Blocks: 100, BlockSize: 16, GPUMemoryUtilization: 0.9}}
	kv := ProfileKV(p, "p.json")
	if kv == nil || kv.Reported == nil || kv.Reported.Blocks != 100 || kv.Reported.GPUMemoryUtilization != 0.9 || kv.Devices != 2 || kv.Tokens != 0 {
		t.Fatalf("got %+v", kv)
	}
	if ProfileKV(&calibrate.Profile{}, "p.json") != nil {
		t.Error("a profile with neither kv nor kv_reported: want nil")
	}
}
