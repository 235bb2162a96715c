package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/replay/proxy"
	"github.com/servesim/servesim/verify"
)

// walkthroughSweep sweeps the knobs the CPU engine really has: parallel
// slots (OLLAMA_NUM_PARALLEL = max_num_seqs). The context per slot
// (max_model_len) is fixed at 4096 by the test model's Modelfile
// (num_ctx), so it is swept over that one value.
const walkthroughSweep = `base = "plan.toml"

[sweep]
"batch.max_num_seqs" = [1, 2, 4]
"device.max_model_len" = [4096]

[slo]
ttft_p99_ms = 3000
tpot_p99_ms = 200
goodput_min = 0.9
`

// verifyPort is where the walkthrough starts its own engines, away from
// the one `make test-e2e` (or a person) runs on the default port.
const verifyPort = "11437"

// TestE2EWalkthrough is the README walkthrough (docs/walkthrough.md) as a
// test, on the real CPU engine: synthesise a production-like trace,
// record it through the recording proxy, calibrate (quick plan), sweep
// the engine's real knobs with the capacity search, and verify the top 3
// live, restarting Ollama with OLLAMA_NUM_PARALLEL = max_num_seqs for each
// candidate, then refit the profile. It checks that every step ran and
// the artefacts are consistent; the accuracy numbers are logged, not
// gated (see the acceptance test of calibrate for the accuracy gate):
// on a shared 2-core host the engine's speed moves with the load.
func TestE2EWalkthrough(t *testing.T) {
	url, model := engine(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ollama := filepath.Join(root, ".cache/bin/ollama")
	if _, err := os.Stat(ollama); err != nil {
		liveUnavailable(t, "no Ollama binary at %s (scripts/engine.sh install)", ollama)
	}
	if ln, err := net.Listen("tcp", "127.0.0.1:"+verifyPort); err != nil {
		liveUnavailable(t, "port %s is busy: %v", verifyPort, err)
	} else {
		ln.Close()
	}
	saved := cli.OsExiter
	cli.OsExiter = func(int) {}
	defer func() { cli.OsExiter = saved }()
	dir := t.TempDir()
	t0 := time.Now()
	step := func(name string) { t.Logf("%-10s done at %v", name, time.Since(t0).Round(time.Second)) }
	noKey := []string{"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--prompt-prefix", "7"}

	// 1. A production-like trace: bursty arrivals, long-tailed lengths,
	// shared prefixes.
	prod := filepath.Join(dir, "prod.parquet")
	if _, err := run(t, "trace", "synth", "--requests", "40", "--arrival", "gamma", "--cv", "2", "--rate", "1",
		"--prompt", "lognormal:160:0.6:16:1024", "--output", "lognormal:24:0.5:4:96",
		"--prefix-groups", "4", "--prefix-tokens", "64", "--block-size", "16", "--seed", "42", prod); err != nil {
		t.Fatal(err)
	}
	step("synth")

	// 2. Record it through the recording proxy, as production traffic
	// would be captured.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pcfg := proxy.DefaultConfig()
	pcfg.Upstream = strings.TrimSuffix(url, "/v1")
	pcfg.Out = filepath.Join(dir, "captured.parquet")
	pcfg.TokensPerByte, pcfg.BlockSize = 1, 16
	ctx, stopProxy := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := proxy.Serve(ctx, ln, pcfg); done <- err }()
	if _, err := run(t, append([]string{"record", "--trace", prod, "--out", filepath.Join(dir, "client.parquet"),
		"--base-url", "http://" + ln.Addr().String() + "/v1", "--model", model}, noKey...)...); err != nil {
		t.Fatal(err)
	}
	stopProxy()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	step("record")

	// 3. Calibrate the step-time model (quick plan) on a freshly started
	// engine, as verify's candidates will run on freshly started engines.
	prof := filepath.Join(dir, "profile.json")
	calOut, err := run(t, append([]string{"calibrate", "--base-url", freshEngine(t, calibratePort), "--model", model, "--plan", "quick", "--out", prof,
		"--engine", "ollama", "--engine-version", "0.6.5", "--device", "cpu", "--precision", "f16",
		"--engine-args", "OLLAMA_NUM_PARALLEL=4,num_thread=1"}, noKey...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, calOut)
	}
	// The fit's report, so that a verification miss in a CI log can be
	// read against the calibration it started from.
	t.Logf("calibrate:\n%s", calOut)
	step("calibrate")

	// 4. Sweep the engine knobs, capacity search, top 3 → candidates.json.
	os.WriteFile(filepath.Join(dir, "plan.toml"), []byte(tinyPlan), 0o644)
	spec := filepath.Join(dir, "sweep.toml")
	os.WriteFile(spec, []byte(walkthroughSweep), 0o644)
	sweepOut := filepath.Join(dir, "sweep")
	if out, err := run(t, "simulate", "--sweep", spec, "--trace", pcfg.Out, "--profile", prof, "--out", sweepOut, "--top", "3", "-q"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	} else {
		t.Logf("sweep:\n%s", out)
	}
	step("sweep")

	// 5. Verify the top 3 live: restart Ollama per candidate with
	// OLLAMA_NUM_PARALLEL = max_num_seqs, on its own port, sharing the
	// models directory of the running engine.
	engineCmd := "SERVESIM_ENGINE_PORT={{.Port}} OLLAMA_NUM_PARALLEL={{.MaxNumSeqs}} exec " + shellQuote(filepath.Join(root, "scripts/engine.sh")) + " serve"
	vout := filepath.Join(dir, "verify")
	base := "http://127.0.0.1:" + verifyPort + "/v1"
	out, err := run(t, append([]string{"verify", "--candidates", filepath.Join(sweepOut, "candidates.json"), "--top", "3",
		"--trace", pcfg.Out, "--slice", "30", "--base-url", base, "--model", model, "--engine-cmd", engineCmd,
		"--health-url", "http://127.0.0.1:" + verifyPort + "/api/version", "--profile", prof, "--refit", "--out", vout}, noKey...)...)
	t.Logf("verify:\n%s", out)
	var ec cli.ExitCoder
	if err != nil && !(errors.As(err, &ec) && ec.ExitCode() == exitToleranceFailed) {
		t.Fatalf("verify: %v", err)
	}
	step("verify")
	var res verify.Result
	data, err := os.ReadFile(filepath.Join(vout, "verify.json"))
	if err != nil || json.Unmarshal(data, &res) != nil {
		t.Fatalf("verify.json: %v", err)
	}
	if len(res.Candidates) != 3 {
		t.Fatalf("%d candidates verified, want 3", len(res.Candidates))
	}
	for _, c := range res.Candidates {
		if c.Status != verify.StatusOK {
			t.Errorf("candidate %s: %s: %s", c.Label, c.Status, c.Detail)
			continue
		}
		if c.Measured.Completed != 30 || c.Predicted.Requests != 30 {
			t.Errorf("candidate %s: measured %d/%d, predicted over %d requests", c.Label, c.Measured.Completed, c.Measured.Requests, c.Predicted.Requests)
		}
	}
	if res.Refit == nil || res.Refit.Error != "" || res.Refit.NewRuns == 0 {
		t.Errorf("refit: %+v", res.Refit)
	} else if _, err := calibrate.LoadProfile(res.Refit.Out); err != nil {
		t.Error(err)
	}
	var b strings.Builder
	errs := func(e map[string]float64) {
		for _, m := range verify.MetricNames {
			if v, ok := e[m]; ok {
				fmt.Fprintf(&b, " %s %.1f%%", m, 100*v)
			}
		}
	}
	errs(res.MedianAbsError)
	if res.Refit != nil && len(res.Refit.MetricErrorAtSpeed) > 0 {
		b.WriteString("; at each engine's measured decode speed:")
		errs(res.Refit.MetricErrorAtSpeed)
	}
	tau := math.NaN()
	if res.Ranking.TauSweep != nil {
		tau = *res.Ranking.TauSweep
	}
	t.Logf("median |error|:%s; ranking held %v (τ %.2f); outputs differing across candidates %.1f%%; walkthrough %v",
		b.String(), res.Ranking.Held, tau, 100*res.Consistency.Fraction, time.Since(t0).Round(time.Second))
}
