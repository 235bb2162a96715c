package plan

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// A capacity measured on more memory (a higher gpu_memory_utilization, or
// fp8 weights beside a bf16 plan) does not raise a plan whose usable memory
// cannot hold it beside the weights: Llama-3.1-8B's 449,072 tokens measured
// at 0.9 on an H100 are 58.9 GB of KV cache, more than the 42.8 GB that
// utilization 0.5 leaves for weights and cache together.
func TestMeasuredKVBeyondThePlansMemoryIsNotUsed(t *testing.T) {
	cat := model.DefaultCatalog()
	at9 := mustResolve(t, valid)
	kv := &MeasuredKV{Source: "profile p.json", Tokens: int64(at9.Capacity.MaxTokens), Devices: 1}
	p, err := Parse([]byte(strings.Replace(valid, "gpu_memory_utilization = 0.9", "gpu_memory_utilization = 0.5", 1)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.ResolveMeasured(cat, kv)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Capacity
	blockBytes := c.KVBytesPerTokenPerDevice * float64(r.Memory.BlockSize)
	fits := int((c.UsableBytesPerDevice - c.WeightBytesPerDevice) / blockBytes)
	if c.KVBlocks > fits || r.KVSource != "" || c.KVBlocks != r.CatalogKVBlocks {
		t.Errorf("utilization 0.5: %d blocks (source %q, catalog %d); its memory holds at most %d beside the weights: want the catalog's",
			c.KVBlocks, r.KVSource, r.CatalogKVBlocks, fits)
	}
	// At the utilization it was measured at, the measurement still counts.
	r9, err := mustParse(t, valid).ResolveMeasured(cat, &MeasuredKV{Source: "profile p.json", Tokens: kv.Tokens + 16*500, Devices: 1})
	if err != nil || r9.KVSource == "" {
		t.Errorf("utilization 0.9: source %q, err %v; want the measured capacity", r9.KVSource, err)
	}
}

func mustParse(t *testing.T, text string) *Plan {
	t.Helper()
	p, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
