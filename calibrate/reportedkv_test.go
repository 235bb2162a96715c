package calibrate

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestProfileReportedKVRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	p := testProfile()
	p.KVReported = &ReportedKV{Source: "vllm:cache_config_info", Tokens: 28067 * 16, Blocks: 28067, BlockSize: 16, GPUMemoryUtilization: 0.9}
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.KVReported, p.KVReported) {
		t.Errorf("got %+v, want %+v", got.KVReported, p.KVReported)
	}
}

func TestProfileReportedKVRejects(t *testing.T) {
	for _, c := range []struct {
		r    ReportedKV
		want string
	}{
		{ReportedKV{Tokens: 0}, "kv_reported.tokens = 0"},
		{ReportedKV{Tokens: 160, Blocks: 10}, "kv_reported.blocks = 10, block_size = 0"},
		{ReportedKV{Tokens: 100, Blocks: 10, BlockSize: 16}, "kv_reported.tokens = 100: want blocks 10 × block_size 16"},
		{ReportedKV{Tokens: 100, GPUMemoryUtilization: 90}, "kv_reported.gpu_memory_utilization = 90"},
	} {
		p := testProfile()
		p.KVReported = &c.r
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.r, err, c.want)
		}
	}
}
