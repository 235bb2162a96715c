package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

func TestCalibrateDryRunPrintsPlan(t *testing.T) {
	out, err := run(t, "calibrate", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--out", filepath.Join(t.TempDir(), "p.json"), "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"plan quick", "warmup", "prefill-r1", "decode-c4-p512-r2", "mixed-c4-r1", "memory-c8-r1", "requests"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(t, "calibrate", "--base-url", "x", "--model", "m", "--out", "p.json", "--plan", "nope", "--dry-run"); err == nil {
		t.Error("unknown plan: no error")
	}
}

// A live calibration needs the engine's URL and model; a refit from
// traces needs neither.
func TestCalibrateNeedsEngineOnlyLive(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	if _, err := run(t, "calibrate", "--out", out); err == nil || !strings.Contains(err.Error(), "--base-url and --model") {
		t.Errorf("live without --base-url: err = %v, want one naming --base-url and --model", err)
	}
	dir := t.TempDir()
	_, err := run(t, "calibrate", "--out", out, "--from-traces", dir)
	if err == nil || !strings.Contains(err.Error(), "no calibration runs in "+dir) {
		t.Errorf("refit from an empty dir: err = %v, want one naming %s", err, dir)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed calibration left %s (stat: %v)", out, err)
	}
	// A bad --without is refused before any live run (nothing listens here).
	_, err = run(t, "calibrate", "--out", out, "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--without", "crx")
	if err == nil || !strings.Contains(err.Error(), `--without: unknown step-model term "crx"`) {
		t.Errorf("--without crx: err = %v, want one naming the term", err)
	}
	// An engine that cannot be reached leaves nothing behind: no profile
	// and no empty directory for traces.
	_, err = run(t, "calibrate", "--out", out, "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--api-key-env", "SERVESIM_NO_KEY")
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unreachable engine: err = %v, want connection refused", err)
	}
	for _, p := range []string{out, strings.TrimSuffix(out, ".json") + ".traces"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a failed calibration left %s (stat: %v)", p, err)
		}
	}
}

// --profile replaces the roofline prior and the catalog's KV capacity;
// --closed-loop simulates clients instead of arrival times.
func TestSimulateProfileClosedLoop(t *testing.T) {
	dir := t.TempDir()
	prof, err := os.ReadFile("../../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "tiny.toml")
	os.WriteFile(cfg, []byte(tinyPlan), 0o644)
	src := filepath.Join(dir, "in.csv")
	os.WriteFile(src, []byte("arrival_ns,prompt_tokens,output_tokens\n0,100,10\n5000000000,200,20\n9000000000,50,5\n"), 0o644)

	// A profile measured on another device than the plan's is refused,
	// naming the plan among several: the H100 plan fits, the CPU one not.
	h100 := filepath.Join(dir, "h100.json")
	os.WriteFile(h100, prof, 0o644)
	gpu := basePlan(t, dir, "gpu.toml")
	if _, code, err := runCode(t, "simulate", "--trace", src, "--config", gpu, "--config", cfg, "--profile", h100); code != 2 || err == nil ||
		!strings.Contains(err.Error(), `measured on device "H100-SXM-80G", but plan `+cfg+` runs on "cpu"`) || strings.Contains(err.Error(), gpu) {
		t.Errorf("profile of another device: exit %d, %v\nwant exit 2 naming %s, not %s", code, err, cfg, gpu)
	} else if want := "simulate: --profile " + h100 + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("profile of another device: %v\nwant it to start %q: a usage error is printed as it is", err, want)
	}

	// Measured KV tokens beyond the catalog's capacity raise it.
	prof = bytes.Replace(prof, []byte(`"H100-SXM-80G"`), []byte(`"cpu"`), 1)
	// (the cpu device holds 167,503 blocks of servesim-tiny in the catalog,
	// and at most 176,087 beside its weights)
	prof = bytes.Replace(prof, []byte(`"max_concurrent_tokens": 453000`), []byte(`"max_concurrent_tokens": 2800000`), 1)
	prof = bytes.Replace(prof, []byte(`"blocks": 28312`), []byte(`"blocks": 175000`), 1)
	profPath := filepath.Join(dir, "p.json")
	os.WriteFile(profPath, prof, 0o644)
	out, err := run(t, "simulate", "--trace", src, "--config", cfg, "--profile", profPath, "--closed-loop", "1")
	if err != nil {
		t.Fatal(err)
	}
	// The profile's Llama-3.1-8B in bf16 is not the plan's model: said once.
	mismatch := `was measured at precision bf16, the plan f16; model "Llama-3.1-8B", the plan servesim-tiny`
	if n := strings.Count(out, mismatch); n != 1 {
		t.Errorf("%d warnings %q, want 1:\n%s", n, mismatch, out)
	}
	for _, want := range []string{"profile " + profPath, "R²", "held-out MdAPE", "closed loop, 1 clients", "3/3", "KV capacity raised to the profile's measured 2800000 tokens → 175000 blocks"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Without --profile the prior is used and said so.
	out, err = run(t, "simulate", "--trace", src, "--config", cfg, "--closed-loop", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "roofline prior") {
		t.Errorf("no roofline prior mention:\n%s", out)
	}
	if _, err := run(t, "simulate", "--trace", src, "--config", cfg, "--closed-loop", "0"); err == nil {
		t.Error("--closed-loop 0: no error")
	}
	if _, err := run(t, "simulate", "--trace", src, "--config", cfg, "--closed-loop", "2", "--closed-loop-gap", "1000h"); err == nil ||
		!strings.Contains(err.Error(), "--closed-loop-gap 1000h0m0s: want in [0, 1m0s]") {
		t.Errorf("--closed-loop-gap 1000h: err = %v, want it refused naming the flag and the range", err)
	}
}

// A refit takes the device, model and engine from its traces, so that the
// profile is still refused on another device; flags may only agree.
func TestRefitInfoFromTraces(t *testing.T) {
	meta := traces.Meta{Model: "tiny", Precision: "f16", Device: "cpu", Engine: "ollama 0.6.5", EngineArgs: "OLLAMA_NUM_PARALLEL=4 num_thread=1"}
	runs := []*calibrate.RunResult{
		{Meta: meta, Trace: &calibrate.TraceRef{Path: "a.parquet"}},
		{Meta: traces.Meta{Device: "cpu"}, Trace: &calibrate.TraceRef{Path: "b.parquet"}}, // older traces name less
	}
	got, err := refitInfo(calibrate.EngineInfo{TensorParallel: 1}, runs)
	if err != nil {
		t.Fatal(err)
	}
	want := calibrate.EngineInfo{Engine: "ollama", EngineVersion: "0.6.5", EngineArgs: []string{"OLLAMA_NUM_PARALLEL=4", "num_thread=1"},
		Model: "tiny", Precision: "f16", Device: "cpu", TensorParallel: 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refit info %+v, want %+v", got, want)
	}
	if _, err := refitInfo(calibrate.EngineInfo{Device: "H100-SXM-80G"}, runs); err == nil || !strings.Contains(err.Error(), `--device "H100-SXM-80G", but b.parquet was measured with "cpu"`) {
		t.Errorf("contradicting --device: err = %v", err)
	}
	runs[1].Meta.Device = "A100-80G"
	if _, err := refitInfo(calibrate.EngineInfo{}, runs); err == nil || !strings.Contains(err.Error(), `a.parquet was measured with device "cpu", b.parquet with "A100-80G"`) {
		t.Errorf("traces from two devices: err = %v", err)
	}
}

// --held-out 1 cannot cross-validate (each run predicted by a fit to the
// others needs two folds or more): it is refused before any live run,
// not after every one of them.
func TestCalibrateRefusesOneFold(t *testing.T) {
	url, n := countingServer(t)
	out := filepath.Join(t.TempDir(), "p.json")
	for _, args := range [][]string{
		{"--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY"},
		{"--from-traces", t.TempDir()},
	} {
		_, err := run(t, append([]string{"calibrate", "--out", out, "--held-out", "1"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "--held-out 1") {
			t.Errorf("%v: err = %v, want one naming --held-out 1", args, err)
		}
	}
	if n.Load() != 0 {
		t.Errorf("%d requests reached the engine before --held-out was refused", n.Load())
	}
}

// What the profile records of the engine is checked before any live run:
// a value the profile cannot hold failed its save only after every run
// had been measured.
func TestCalibrateChecksProfileFlagsFirst(t *testing.T) {
	url, n := countingServer(t)
	out := filepath.Join(t.TempDir(), "p.json")
	for _, tc := range []struct{ flag, val string }{
		{"--precision", "bf17"},
		{"--tensor-parallel", "-1"},
		{"--block-size", "-16"},
	} {
		_, err := run(t, "calibrate", "--out", out, "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY", tc.flag, tc.val)
		if err == nil || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%s %s: err = %v, want one naming %s", tc.flag, tc.val, err, tc.flag)
		}
	}
	if n.Load() != 0 {
		t.Errorf("%d requests reached the engine before the flags were refused", n.Load())
	}
}

// A KV block size past any prompt is refused like the other verbs' block
// sizes, as a usage error and before any live run.
func TestCalibrateRefusesBlockSizePastAnyPrompt(t *testing.T) {
	url, n := countingServer(t)
	out := filepath.Join(t.TempDir(), "p.json")
	_, rc, err := runCode(t, "calibrate", "--out", out, "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--block-size", "10000001")
	want := "calibrate: --block-size 10000001: want a KV block size in [0, 10000000] (0 = unknown)"
	if err == nil || err.Error() != want || rc != 2 {
		t.Errorf("err = %v (exit %d), want %q (exit 2)", err, rc, want)
	}
	if n.Load() != 0 {
		t.Errorf("%d requests reached the engine before --block-size was refused", n.Load())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s: stat err = %v, want no profile", out, err)
	}
}

// The KV capacity a profile measured replaces a smaller catalog figure
// before the plan's capacity is checked: a plan that fits only the
// measured cache runs on it, and one that fits neither is refused naming
// the profile's capacity. The profile (H100-SXM-80G) measured 8,400
// blocks of 16; Llama-3.1-8B at utilization 0.4 has fewer in the catalog
// (7,677) than one 131,072-token sequence needs (8,192), and room for
// 8,653 beside its weights.
func TestSimulateProfileKVIsTheCapacityChecked(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	prof := profileMeasuring(t, dir, 8400)
	for _, c := range []struct {
		name, plan, key string
		measured        int // blocks the run has with the profile
	}{
		{"max_model_len past the catalog's cache", string(mustRead(t, "defaults/4-continuous.toml")), "device.max_model_len", 8400},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.plan
			if c.key == "device.max_model_len" {
				p = strings.NewReplacer("gpu_memory_utilization = 0.9", "gpu_memory_utilization = 0.4", "max_model_len = 8192", "max_model_len = 131072").Replace(p)
			}
			cfg := writeFile(t, dir, "p.toml", p)
			// The catalog's cache alone cannot hold it.
			if _, err := run(t, "simulate", "--trace", tr, "--config", cfg); err == nil || !strings.Contains(err.Error(), c.key+": ") ||
				!strings.Contains(err.Error(), "device.gpu_memory_utilization") {
				t.Fatalf("without the profile: err = %v, want %s refused on the catalog's cache", err, c.key)
			}
			out, err := run(t, "simulate", "--trace", tr, "--config", cfg, "--profile", prof, "--json")
			var res []plan.Result
			if err != nil || json.Unmarshal([]byte(out[strings.Index(out, "["):]), &res) != nil || len(res) != 1 {
				t.Fatalf("with the profile: %v\n%s", err, out)
			}
			if got := res[0].Summary.KV.TotalBlocks; got != c.measured {
				t.Errorf("ran on %d KV blocks, want the profile's %d", got, c.measured)
			}
		})
	}
}

// A refit replays recorded runs: flags that shape live runs would be
// ignored without a word (--from-traces --dry-run printed nothing and
// exited 0), so they are refused, naming the flag.
func TestCalibrateFromTracesRefusesLiveFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	for _, args := range [][]string{
		{"--dry-run"}, {"--plan", "full"}, {"--base-url", "http://127.0.0.1:1/v1"}, {"--repeats", "3"}, {"--timeout", "1s"},
	} {
		text, code, err := runCode(t, append([]string{"calibrate", "--out", out, "--from-traces", t.TempDir()}, args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), args[0]+" is for live runs") {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %s\n%s", args, code, err, args[0], text)
		}
	}
}

// profileMeasuring writes into dir a copy of the test profile
// (H100-SXM-80G) that measured blocks KV blocks of 16 tokens.
func profileMeasuring(t *testing.T, dir string, blocks int) string {
	t.Helper()
	data, err := os.ReadFile("../../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"max_concurrent_tokens": 453000`), []byte(fmt.Sprintf(`"max_concurrent_tokens": %d`, blocks*16)), 1)
	data = bytes.Replace(data, []byte(`"blocks": 28312`), []byte(fmt.Sprintf(`"blocks": %d`, blocks)), 1)
	return writeFile(t, dir, fmt.Sprintf("measured-%d.json", blocks), string(data))
}

// A dry run refuses the client flags the live run would refuse, so that
// a command it passes does not fail at once when run; it needs no engine
// to name.
func TestCalibrateDryRunChecksClientFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	for _, tc := range [][]string{{"--timeout", "0"}, {"--endpoint", "responses"}, {"--tokens-per-byte", "500"}, {"--base-url", "ftp://h/v1"}} {
		args := append([]string{"calibrate", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--out", out, "--dry-run"}, tc...)
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc[0]) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %s", tc, code, err, tc[0])
		}
	}
	if _, code, err := runCode(t, "calibrate", "--out", out, "--dry-run", "--timeout", "1s"); code != 0 {
		t.Errorf("dry run without --base-url and --model: exit %d, err %v; want the plan", code, err)
	}
}
