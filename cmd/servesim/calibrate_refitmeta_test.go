package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A refit keeps the tensor-parallel degree and KV block size the live
// calibration was told: without them simulate neither warns of a plan on
// other devices nor guards the measured KV capacity by device count.
func TestCalibrateRefitKeepsParallelismAndBlockSize(t *testing.T) {
	dir := t.TempDir()
	live, refit := calibrateAndRefit(t, dir, "--tensor-parallel", "2", "--block-size", "16")
	if refit.TensorParallel != 2 || refit.BlockSize != 16 {
		t.Errorf("refit: tensor_parallel %d, block_size %d; want the live calibration's 2 and 16", refit.TensorParallel, refit.BlockSize)
	}
	if (live.KV == nil) != (refit.KV == nil) || live.KV != nil && live.KV.Blocks != refit.KV.Blocks {
		t.Errorf("refit KV %+v, live %+v", refit.KV, live.KV)
	}
	// a flag given wins over the traces
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "r.json"), "--from-traces", filepath.Join(dir, "p.traces"), "--tensor-parallel", "4", "--block-size", "32"); err != nil {
		t.Fatal(err)
	}
	if r := loadProfile(t, filepath.Join(dir, "r.json")); r.TensorParallel != 4 || r.BlockSize != 32 {
		t.Errorf("refit with flags: tensor_parallel %d, block_size %d; want the flags' 4 and 32", r.TensorParallel, r.BlockSize)
	}
}

// Traces that disagree on the tensor-parallel degree or block size are
// refused, naming both files; traces written before they were recorded
// leave them as the flags say (0 = unknown); a value that is not a
// count is refused naming the file and the key.
func TestRefitInfoParallelismAndBlockSize(t *testing.T) {
	withExtra := func(path string, kv ...string) *calibrate.RunResult {
		var m traces.Meta
		for i := 0; i+1 < len(kv); i += 2 {
			m.Set(kv[i], kv[i+1])
		}
		return &calibrate.RunResult{Meta: m, Trace: &calibrate.TraceRef{Path: path}}
	}
	runs := []*calibrate.RunResult{
		withExtra("a.parquet", calibrate.TensorParallelKey, "2", calibrate.KVBlockSizeKey, "16"),
		withExtra("b.parquet"), // older traces say neither
	}
	got, err := refitInfo(calibrate.EngineInfo{}, runs)
	if err != nil || got.TensorParallel != 2 || got.BlockSize != 16 {
		t.Errorf("refit info %+v, %v; want tensor parallel 2, block size 16", got, err)
	}
	if got, err := refitInfo(calibrate.EngineInfo{}, runs[1:]); err != nil || got.TensorParallel != 0 || got.BlockSize != 0 {
		t.Errorf("older traces: refit info %+v, %v; want both unknown (0)", got, err)
	}
	runs[1] = withExtra("b.parquet", calibrate.TensorParallelKey, "4")
	if _, err := refitInfo(calibrate.EngineInfo{}, runs); err == nil || !strings.Contains(err.Error(), `a.parquet was measured with tensor-parallel "2", b.parquet with "4"`) {
		t.Errorf("traces of two degrees: err = %v", err)
	}
	runs[1] = withExtra("b.parquet", calibrate.KVBlockSizeKey, "sixteen")
	if _, err := refitInfo(calibrate.EngineInfo{}, runs); err == nil || !strings.Contains(err.Error(), `b.parquet: metadata kv_block_size = "sixteen", want an integer > 0`) {
		t.Errorf("a block size that is no count: err = %v", err)
	}
}

// The tensor-parallel degree and block size are counts: traces that
// write the same count two ways agree; a key present but empty says
// nothing calibrate writes (it leaves the key out when unknown) and is
// refused naming the file and the key, as an empty reported KV is.
func TestRefitInfoCountsComparedAsNumbers(t *testing.T) {
	withExtra := func(path string, kv ...string) *calibrate.RunResult {
		var m traces.Meta
		for i := 0; i+1 < len(kv); i += 2 {
			m.Set(kv[i], kv[i+1])
		}
		return &calibrate.RunResult{Meta: m, Trace: &calibrate.TraceRef{Path: path}}
	}
	for _, other := range []string{"02", "+2"} {
		runs := []*calibrate.RunResult{
			withExtra("a.parquet", calibrate.TensorParallelKey, "2", calibrate.KVBlockSizeKey, "16"),
			withExtra("b.parquet", calibrate.TensorParallelKey, other, calibrate.KVBlockSizeKey, "016"),
		}
		if got, err := refitInfo(calibrate.EngineInfo{}, runs); err != nil || got.TensorParallel != 2 || got.BlockSize != 16 {
			t.Errorf("traces of tensor parallel \"2\" and %q: refit info %+v, %v; want 2 and 16", other, got, err)
		}
	}
	for _, key := range []string{calibrate.TensorParallelKey, calibrate.KVBlockSizeKey, calibrate.ReportedKVKey} {
		runs := []*calibrate.RunResult{withExtra("a.parquet"), withExtra("b.parquet", key, "")}
		if _, err := refitInfo(calibrate.EngineInfo{}, runs); err == nil || !strings.Contains(err.Error(), "b.parquet: metadata "+key+` = ""`) {
			t.Errorf("%s present but empty: err = %v; want it refused naming the file and key", key, err)
		}
	}
}

// A refit names the engine arguments as the live calibration did: one
// that holds a space (a chat template, a JSON setting) stays one.
func TestCalibrateRefitKeepsEngineArgs(t *testing.T) {
	dir := t.TempDir()
	live, refit := calibrateAndRefit(t, dir,
		"--engine", "vllm", "--engine-args", `--override-generation-config={"temperature": 0}`, "--engine-args", "--enforce-eager")
	if !slices.Equal(refit.EngineArgs, live.EngineArgs) {
		t.Errorf("refit engine_args %q, live %q", refit.EngineArgs, live.EngineArgs)
	}
	// the same arguments given again agree with the traces
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "r.json"), "--from-traces", filepath.Join(dir, "p.traces"),
		"--engine-args", `--override-generation-config={"temperature": 0}`, "--engine-args", "--enforce-eager"); err != nil {
		t.Errorf("refit with the live engine arguments: %v", err)
	}
}

// A refit names the engine and its version as the live calibration did,
// also when only the version was given.
func TestCalibrateRefitKeepsEngineVersionAlone(t *testing.T) {
	_, refit := calibrateAndRefit(t, t.TempDir(), "--engine-version", "0.6.5")
	if refit.Engine != "" || refit.EngineVersion != "0.6.5" {
		t.Errorf("refit engine %q, version %q; want the live calibration's \"\" and \"0.6.5\"", refit.Engine, refit.EngineVersion)
	}
}

// The KV capacity the engine reported comes back from the traces'
// metadata; traces that disagree on it, or a value that is no capacity,
// are refused naming the file and what was wrong.
func TestRefitInfoReportedKV(t *testing.T) {
	withKV := func(path, v string) *calibrate.RunResult {
		var m traces.Meta
		if v != "" {
			m.Set(calibrate.ReportedKVKey, v)
		}
		return &calibrate.RunResult{Meta: m, Trace: &calibrate.TraceRef{Path: path}}
	}
	const kv = `{"source":"vllm:cache_config_info","tokens":16000,"blocks":1000,"block_size":16,"gpu_memory_utilization":0.85}`
	runs := []*calibrate.RunResult{withKV("a.parquet", kv), withKV("b.parquet", "")}
	want := calibrate.ReportedKV{Source: "vllm:cache_config_info", Tokens: 16000, Blocks: 1000, BlockSize: 16, GPUMemoryUtilization: 0.85}
	if got, err := refitInfo(calibrate.EngineInfo{}, runs); err != nil || got.ReportedKV == nil || *got.ReportedKV != want {
		t.Errorf("refit info %+v, %v; want reported KV %+v", got.ReportedKV, err, want)
	}
	if got, err := refitInfo(calibrate.EngineInfo{}, runs[1:]); err != nil || got.ReportedKV != nil {
		t.Errorf("older traces: reported KV %+v, %v; want none", got.ReportedKV, err)
	}
	runs[1] = withKV("b.parquet", `{"source":"sglang:max_total_num_tokens","tokens":9000}`)
	if _, err := refitInfo(calibrate.EngineInfo{}, runs); err == nil || !strings.Contains(err.Error(), "a.parquet was measured with the engine reporting KV capacity") || !strings.Contains(err.Error(), "b.parquet with") {
		t.Errorf("traces of two capacities: err = %v", err)
	}
	runs[1] = withKV("b.parquet", `{"source":"x","tokens":100,"blocks":7,"block_size":16}`)
	if _, err := refitInfo(calibrate.EngineInfo{}, runs); err == nil || !strings.Contains(err.Error(), "b.parquet: metadata kv_reported") || !strings.Contains(err.Error(), "tokens = 100: want blocks 7 × block_size 16") {
		t.Errorf("a capacity that does not add up: err = %v", err)
	}
	runs[1] = withKV("b.parquet", `16000`)
	if _, err := refitInfo(calibrate.EngineInfo{}, runs); err == nil || !strings.Contains(err.Error(), "b.parquet: metadata kv_reported = \"16000\": want a JSON object") {
		t.Errorf("a capacity that is no object: err = %v", err)
	}
}

// A refit keeps an engine name with a space in it whole when no version
// was given, as the live calibration recorded it.
func TestCalibrateRefitKeepsEngineNameAlone(t *testing.T) {
	_, refit := calibrateAndRefit(t, t.TempDir(), "--engine", "llama.cpp server")
	if refit.Engine != "llama.cpp server" || refit.EngineVersion != "" {
		t.Errorf("refit engine %q, version %q; want the live calibration's \"llama.cpp server\" and \"\"", refit.Engine, refit.EngineVersion)
	}
}

// calibrateAndRefit calibrates against a replayed engine, with the flags
// given after the usual small ones, into dir/p.json (its traces in
// dir/p.traces), refits from those traces into dir/q.json, and returns
// both profiles.
func calibrateAndRefit(t *testing.T, dir string, flags ...string) (live, refit *calibrate.Profile) {
	t.Helper()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	args := append([]string{"calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"}, flags...)
	if _, err := run(t, args...); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces")); err != nil {
		t.Fatal(err)
	}
	return loadProfile(t, filepath.Join(dir, "p.json")), loadProfile(t, filepath.Join(dir, "q.json"))
}

// loadProfile loads the profile at path.
func loadProfile(t *testing.T, path string) *calibrate.Profile {
	t.Helper()
	p, err := calibrate.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// --engine given again without --engine-version names the traces' engine,
// whose version they record: the refit keeps that version. Another name,
// or another version given, contradicts the traces and is refused.
func TestRefitInfoEngineWithoutVersion(t *testing.T) {
	var m traces.Meta
	m.Engine = "ollama 0.5.1"
	m.Set(calibrate.EngineVersionKey, "0.5.1")
	runs := []*calibrate.RunResult{{Meta: m, Trace: &calibrate.TraceRef{Path: "a.parquet"}}}
	got, err := refitInfo(calibrate.EngineInfo{Engine: "ollama"}, runs)
	if err != nil || got.Engine != "ollama" || got.EngineVersion != "0.5.1" {
		t.Errorf("--engine ollama on traces of ollama 0.5.1: engine %q version %q, err %v; want ollama 0.5.1", got.Engine, got.EngineVersion, err)
	}
	for _, flags := range []calibrate.EngineInfo{{Engine: "vllm"}, {Engine: "ollama", EngineVersion: "0.6.0"}, {Engine: "olla"}} {
		if _, err := refitInfo(flags, runs); err == nil || !strings.Contains(err.Error(), "a.parquet") {
			t.Errorf("--engine %q --engine-version %q on traces of ollama 0.5.1: err %v, want a refusal naming a.parquet", flags.Engine, flags.EngineVersion, err)
		}
	}
}
