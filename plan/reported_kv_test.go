package plan

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// The capacity the engine reported is exact: at the utilization and
// devices it was reported at it replaces the catalog's figure, smaller
// or larger.
func TestReportedKVReplacesTheCatalogAtItsUtilization(t *testing.T) {
	cat := model.DefaultCatalog()
	base := mustResolve(t, valid)
	bs := int64(base.Memory.BlockSize)
	for _, blocks := range []int64{int64(base.CatalogKVBlocks) - 300, int64(base.CatalogKVBlocks) + 300} {
		kv := &MeasuredKV{Source: "profile p.json", Tokens: 1000, Devices: 1,
			Reported: &ReportedKV{Tokens: blocks * bs, Blocks: blocks, BlockSize: int(bs), GPUMemoryUtilization: 0.9}}
		r, err := mustParse(t, valid).ResolveMeasured(cat, kv)
		if err != nil {
			t.Fatal(err)
		}
		if int64(r.Capacity.KVBlocks) != blocks || !strings.Contains(r.KVSource, "reported by the engine") {
			t.Errorf("reported %d blocks: got %d (source %q, catalog %d); want the reported", blocks, r.Capacity.KVBlocks, r.KVSource, r.CatalogKVBlocks)
		}
	}
}

// At another utilization the reported figure is not scaled: a smaller one
// leaves the catalog's, and one past the plan's memory raises nothing.
func TestReportedKVAtAnotherUtilizationIsALowerBound(t *testing.T) {
	cat := model.DefaultCatalog()
	base := mustResolve(t, valid)
	bs := int64(base.Memory.BlockSize)
	small := int64(base.CatalogKVBlocks) / 2
	kv := &MeasuredKV{Source: "profile p.json", Devices: 1,
		Reported: &ReportedKV{Tokens: small * bs, Blocks: small, BlockSize: int(bs), GPUMemoryUtilization: 0.5}}
	r, err := mustParse(t, valid).ResolveMeasured(cat, kv)
	if err != nil || r.Capacity.KVBlocks != r.CatalogKVBlocks || r.KVSource != "" {
		t.Errorf("reported at 0.5, plan at 0.9: %d blocks (source %q, catalog %d), %v; want the catalog's", r.Capacity.KVBlocks, r.KVSource, r.CatalogKVBlocks, err)
	}
	kv.Reported = &ReportedKV{Tokens: int64(base.Capacity.MaxTokens), Blocks: int64(base.CatalogKVBlocks), BlockSize: int(bs), GPUMemoryUtilization: 0.9}
	r5, err := mustParse(t, strings.Replace(valid, "gpu_memory_utilization = 0.9", "gpu_memory_utilization = 0.5", 1)).ResolveMeasured(cat, kv)
	if err != nil || r5.KVSource != "" {
		t.Errorf("reported at 0.9, plan at 0.5: source %q, %v; want the catalog's", r5.KVSource, err)
	}
}
