package calibrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// block_size and kv_reported.block_size both reach the simulator's KV
// cache (the blocks counted in each); the engine's own report is the one
// it ran with, so a profile whose block_size says otherwise is refused,
// naming the file and both fields.
func TestLoadProfileRejectsBlockSizeTheEngineDidNotReport(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	// The engine's 454016 tokens, in blocks of bs.
	with := func(bs int) string {
		r := fmt.Sprintf(`"kv_reported": {"source": "vllm:cache_config_info", "tokens": 454016, "blocks": %d, "block_size": %d, "gpu_memory_utilization": 0.9}`, 454016/bs, bs)
		s := strings.Replace(g, `"kv_reported": null`, r, 1)
		if s == g {
			t.Fatal(`"kv_reported": null not found`)
		}
		return s
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	if err := os.WriteFile(path, []byte(with(32)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ": calibrate: profile: block_size = 16, but kv_reported.block_size = 32, the engine's own: want block_size 32 (or 0, unknown)"
	if _, err := LoadProfile(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
	// The same block size, or an engine that counts no blocks, loads.
	if _, err := ParseProfile([]byte(with(16))); err != nil {
		t.Errorf("same block size: %v", err)
	}
	noBlocks := strings.Replace(g, `"kv_reported": null`, `"kv_reported": {"source": "x", "tokens": 454016, "blocks": 0, "block_size": 0, "gpu_memory_utilization": 0}`, 1)
	if _, err := ParseProfile([]byte(noBlocks)); err != nil {
		t.Errorf("engine counting no blocks: %v", err)
	}
}

// A block size told to calibrate that the engine's report contradicts
// gives way to the report, and the measured blocks are counted in it: the
// profile saves instead of failing after the runs.
func TestProfileTakesTheEnginesBlockSize(t *testing.T) {
	a := &Analysis{Fit: &Fit{Step: testProfile().Step}, Concurrency: &ConcurrencyProbe{MaxTokens: 1000},
		Method: FitMethod{Window: 1, HeldOutFolds: 5}}
	info := EngineInfo{Engine: "e", Model: "m", BlockSize: 32,
		ReportedKV: &ReportedKV{Source: "vllm:cache_config_info", Tokens: 1600, Blocks: 100, BlockSize: 16}}
	p := a.Profile(info, nil, time.Now())
	if p.BlockSize != 16 || p.KV == nil || p.KV.Blocks != 63 {
		t.Errorf("block_size %d, kv %+v: want 16 and 63 blocks (1000 tokens in blocks of 16)", p.BlockSize, p.KV)
	}
	if err := p.Save(filepath.Join(t.TempDir(), "p.json")); err != nil {
		t.Errorf("save: %v", err)
	}
}
