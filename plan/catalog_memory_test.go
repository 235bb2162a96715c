package plan

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// hugeGPU is a hardware entry whose memory holds more KV blocks than the
// simulator can count (a mistyped memory_bytes, say).
const hugeGPU = "[[hardware]]\nname = \"huge\"\nmemory_bytes = 1e20\nbandwidth_bytes_per_sec = 1e12\ntdp_watts = 100\nidle_watts = 10\nprice_per_hour = 1\n[hardware.flops]\nbf16 = 4e14\n"

// A memory layout the catalog's hardware entry makes impossible is named
// by the plan key that chose the entry, at its line, as other values the
// catalog refuses are. It was "Llama-3.1-8B on 1× huge: model: ..." with
// neither key nor line.
func TestResolveNamesTheDeviceWhoseMemoryCannotBeLaidOut(t *testing.T) {
	cat := model.DefaultCatalog()
	if err := cat.LoadTOMLData([]byte(hugeGPU), "huge.toml"); err != nil {
		t.Fatal(err)
	}
	p, err := Load(writePlan(t, strings.Replace(valid, `model = "H100-SXM-80G"`, `model = "huge"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Resolve(cat)
	if err == nil || !strings.Contains(err.Error(), "line 15: device.model: ") || !strings.Contains(err.Error(), "more than can be counted") {
		t.Errorf("err = %v\nwant line 15: device.model: ... more than can be counted", err)
	}
}

// A measured KV capacity past what the simulator counts in blocks (int32)
// is no device's, however much memory the catalog gives: it raises
// nothing. It replaced the catalog's count whenever the memory could
// hold it, past the bound the catalog's own layout keeps.
func TestMeasuredKVPastTheBlockBoundRaisesNothing(t *testing.T) {
	cat := model.DefaultCatalog()
	h100 := mustResolve(t, valid)
	hw := h100.Hardware
	hw.Name = "vast"
	// memory whose weights leave just over MaxInt32 blocks, less the
	// activation reserve just under
	blockBytes := h100.Capacity.KVBytesPerTokenPerDevice * float64(h100.Memory.BlockSize)
	hw.MemoryBytes = ((math.MaxInt32+100.5)*blockBytes + h100.Capacity.WeightBytesPerDevice) / 0.9
	if err := cat.AddHardware(hw); err != nil {
		t.Fatal(err)
	}
	p := mustParse(t, strings.Replace(valid, `model = "H100-SXM-80G"`, `model = "vast"`, 1))
	base, err := p.Resolve(cat)
	if err != nil {
		t.Fatal(err)
	}
	past := int64(math.MaxInt32) + 50
	for name, kv := range map[string]*MeasuredKV{
		"reported": {Source: "profile p.json", Devices: 1, Reported: &ReportedKV{Tokens: past * 16, Blocks: past, BlockSize: 16, GPUMemoryUtilization: 0.9}},
		"measured": {Source: "profile p.json", Devices: 1, Tokens: past * 16, Blocks: past, BlockSize: 16},
	} {
		r, err := p.ResolveMeasured(cat, kv)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Capacity.KVBlocks > math.MaxInt32 || r.KVSource != "" || r.Capacity.KVBlocks != base.CatalogKVBlocks {
			t.Errorf("%s %d blocks: got %d blocks (source %q, catalog %d); want the catalog's", name, past, r.Capacity.KVBlocks, r.KVSource, base.CatalogKVBlocks)
		}
	}
}

// A catalog entry whose memory_bytes is too small for the weights, or for
// one max_model_len sequence, fails at the plan's line, as a plan's own
// values do; the error also names the entry's memory and the catalog line
// that set it, the value more likely mistyped than the plan's.
func TestResolveNamesTheCatalogLineOfAMemoryTooSmall(t *testing.T) {
	cat := model.DefaultCatalog()
	if err := cat.LoadTOMLData([]byte("[[hardware]]\nname = \"H100-SXM-80G\"\nmemory_bytes = 1000\n"), "small.toml"); err != nil {
		t.Fatal(err)
	}
	p := mustParse(t, strings.Replace(valid, "max_model_len = 8192", "max_model_len = 131072", 1))
	_, err := p.Resolve(cat)
	if err == nil || !strings.Contains(err.Error(), "H100-SXM-80G's memory_bytes = 1000 (set at small.toml: line 3)") {
		t.Errorf("err = %v\nwant H100-SXM-80G's memory_bytes = 1000 (set at small.toml: line 3)", err)
	}
	// memory that holds the weights but no max_model_len sequence
	if err := cat.LoadTOMLData([]byte("[[hardware]]\nname = \"H100-SXM-80G\"\nmemory_bytes = 21e9\n"), "kv.toml"); err != nil {
		t.Fatal(err)
	}
	_, err = p.Resolve(cat)
	if err == nil || !strings.Contains(err.Error(), "device.max_model_len: ") || !strings.Contains(err.Error(), "H100-SXM-80G's memory_bytes = 2.1e+10 (set at kv.toml: line 3)") {
		t.Errorf("KV too small: err = %v\nwant H100-SXM-80G's memory_bytes = 2.1e+10 (set at kv.toml: line 3)", err)
	}
	// the built-in entry's memory is no catalog file's
	_, err = mustParse(t, strings.Replace(valid, `name = "Llama-3.1-8B"`, `name = "Llama-3.1-70B"`, 1)).Resolve(model.DefaultCatalog())
	if err == nil || strings.Contains(err.Error(), "set at") {
		t.Errorf("built-in entry: err = %v, want one naming no catalog line", err)
	}
}
