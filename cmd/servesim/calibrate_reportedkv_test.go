package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/replay/replaytest"
)

// An engine that reports its KV cache on /metrics gets that capacity into
// the profile, beside the probe's lower bound.
func TestCalibrateRecordsTheReportedKVCapacity(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond,
		Metrics: `vllm:cache_config_info{block_size="16",gpu_memory_utilization="0.85",num_gpu_blocks="1000"} 1.0` + "\n"})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "p.json")
	text, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu", "--engine", "vllm")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "the engine reports 16000 tokens (vllm:cache_config_info)") {
		t.Errorf("output does not say the reported capacity:\n%s", text)
	}
	p, err := calibrate.LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := calibrate.ReportedKV{Source: "vllm:cache_config_info", Tokens: 16000, Blocks: 1000, BlockSize: 16, GPUMemoryUtilization: 0.85}
	if p.KVReported == nil || *p.KVReported != want {
		t.Errorf("kv_reported = %+v, want %+v", p.KVReported, want)
	}
	// A refit from the runs' traces keeps it: the traces' metadata holds
	// what /metrics said before the runs.
	refit := filepath.Join(filepath.Dir(out), "q.json")
	if text, err = run(t, "calibrate", "--out", refit, "--from-traces", strings.TrimSuffix(out, ".json")+".traces"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "KV capacity: the engine reported 16000 tokens (vllm:cache_config_info) before the runs") {
		t.Errorf("refit output does not say the reported capacity:\n%s", text)
	}
	if p, err = calibrate.LoadProfile(refit); err != nil {
		t.Fatal(err)
	}
	if p.KVReported == nil || *p.KVReported != want {
		t.Errorf("refit: kv_reported = %+v, want the live calibration's %+v\n%s", p.KVReported, want, text)
	}
}
