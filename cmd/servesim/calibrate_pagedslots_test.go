package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/replay/replaytest"
)

// vLLM with max_num_seqs under the ramp's top stops the ramp as a slot
// engine would, but its cache is paged: the calibration, and a refit from
// its traces, fit no slot cache (crp = crd = cr = 0). It knows the engine
// by the KV capacity vLLM reports on /metrics, --engine not given.
func TestCalibrateSaturatedPagedEngineGetsNoSlotCache(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Slots: 1, TTFT: 2 * time.Millisecond, ITL: time.Millisecond,
		Metrics: `vllm:cache_config_info{block_size="16",gpu_memory_utilization="0.85",num_gpu_blocks="1000"} 1.0` + "\n"})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "p.json")
	text, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if err != nil {
		t.Fatal(err)
	}
	refit := filepath.Join(filepath.Dir(out), "q.json")
	refitText, err := run(t, "calibrate", "--out", refit, "--from-traces", strings.TrimSuffix(out, ".json")+".traces")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, text string }{{"live", out, text}, {"refit", refit, refitText}} {
		if !strings.Contains(c.text, "engine slots: none, a paged KV cache (KV capacity reported on /metrics (vllm:cache_config_info))") {
			t.Errorf("%s: output does not say the engine is paged:\n%s", c.name, c.text)
		}
		p, err := calibrate.LoadProfile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range []calibrate.Term{calibrate.TermPrefillResident, calibrate.TermDecodeResident, calibrate.TermResident} {
			if s := p.Step.At(term).Status; s != calibrate.StatusOff {
				t.Errorf("%s: %s status %s, want off for a paged engine", c.name, term, s)
			}
		}
	}
}

// A refit's --engine names the engine where the traces name none: a
// paged one keeps the ramp's limit out of the slots, as it does live.
func TestCalibrateRefitEngineFlagNamesAPagedEngine(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Slots: 1, TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "p.json")
	if _, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"); err != nil {
		t.Fatal(err)
	}
	refit := filepath.Join(filepath.Dir(out), "q.json")
	text, err := run(t, "calibrate", "--out", refit, "--engine", "vllm", "--from-traces", strings.TrimSuffix(out, ".json")+".traces")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, `engine slots: none, a paged KV cache (engine "vllm")`) {
		t.Errorf("refit with --engine vllm does not say the engine is paged:\n%s", text)
	}
	p, err := calibrate.LoadProfile(refit)
	if err != nil {
		t.Fatal(err)
	}
	if p.Engine != "vllm" {
		t.Errorf("profile engine %q, want vllm", p.Engine)
	}
	for _, term := range []calibrate.Term{calibrate.TermPrefillResident, calibrate.TermDecodeResident, calibrate.TermResident} {
		if s := p.Step.At(term).Status; s != calibrate.StatusOff {
			t.Errorf("%s status %s, want off for a paged engine", term, s)
		}
	}
	// verify's --refit of that profile replays the same traces: the
	// profile's engine names theirs.
	cands, tr := oneCandidate(t, filepath.Dir(out))
	again := filepath.Join(filepath.Dir(out), "r.json")
	text, err = run(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", srv.BaseURL(), "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", filepath.Join(filepath.Dir(out), "v"),
		"--profile", refit, "--refit", "--refit-out", again, "--tol-throughput", "0", "--tol-ttft", "0", "--tol-tpot", "0", "--tol-p99", "0", "--tol-cost", "0")
	if err != nil {
		t.Fatalf("verify --refit: %v\n%s", err, text)
	}
	if p, err = calibrate.LoadProfile(again); err != nil {
		t.Fatal(err)
	}
	for _, term := range []calibrate.Term{calibrate.TermPrefillResident, calibrate.TermDecodeResident, calibrate.TermResident} {
		if s := p.Step.At(term).Status; s != calibrate.StatusOff {
			t.Errorf("verify --refit: %s status %s, want off for a paged engine", term, s)
		}
	}
}
