package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A refit measures nothing live: it does not print a live time of 0s, and
// it counts the plan's runs it refits as the live calibration printed
// them, not the warm-up and slot-reset traces beside them.
func TestCalibrateRefitNoLiveTime(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	live, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(live, "live time ") {
		t.Errorf("live calibration without its live time:\n%s", live)
	}
	refit, err := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(refit, "live time") {
		t.Errorf("refit prints a live time:\n%s", refit)
	}
	if !strings.Contains(live, "plan quick: 8 runs") || !strings.Contains(refit, "refitting 8 runs from") {
		t.Errorf("live plan of 8 runs, refit says:\n%s", strings.SplitN(refit, "\n", 2)[0])
	}
}

// A calibration into the trace directory of an earlier one replaces its
// runs: a later run the new plan does not have would otherwise be refitted
// with the new ones.
func TestCalibrateReplacesEarlierTraces(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	calibrateLive := func(maxConc string) string {
		t.Helper()
		log, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
			"--max-concurrency", maxConc, "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
		if err != nil {
			t.Fatal(err)
		}
		return log
	}
	calibrateLive("4")
	before, _ := filepath.Glob(filepath.Join(dir, "p.traces", "*.parquet"))
	log := calibrateLive("2") // a shorter plan: the first's last runs would be left over
	after, _ := filepath.Glob(filepath.Join(dir, "p.traces", "*.parquet"))
	if len(after) >= len(before) || !strings.Contains(log, fmt.Sprintf("removed the %d run traces of an earlier calibration", len(before))) {
		t.Errorf("%d traces, then %d after a shorter plan; want fewer, and the %d removed said:\n%s", len(before), len(after), len(before), log)
	}
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces")); err != nil {
		t.Errorf("refit of the second calibration: %v", err)
	}
}

// A profile names its traces from its own directory, where verify's refit
// looks for them, not from the directory calibrate ran in.
func TestCalibrateProfileNamesTracesFromItsDirectory(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if _, err := run(t, "calibrate", "--out", "sub/p.json", "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"); err != nil {
		t.Fatal(err)
	}
	p, err := calibrate.LoadProfile(filepath.Join(dir, "sub", "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range p.Traces {
		if !strings.HasPrefix(tr.Path, "p.traces"+string(filepath.Separator)) {
			t.Fatalf("trace path %q, want it from the profile's directory (p.traces/…)", tr.Path)
		}
	}
}

// The GPU samples of an earlier calibration go with its run traces: a new
// calibration into its trace directory removes both, so one that fails
// before any run leaves no samples without the runs they were taken
// beside.
func TestCalibrateRemovesEarlierSamplesWithTheirTraces(t *testing.T) {
	url, _ := countingServer(t) // every request fails: no run is written
	dir := t.TempDir()
	traceDir := filepath.Join(dir, "p.traces")
	if err := os.Mkdir(traceDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// an earlier calibration's run
	m := traces.Meta{Model: "m"}
	m.Set("calibrate_run", "prefill-r1")
	m.Set("calibrate_kind", calibrate.KindPrefill)
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens = "prefill-r1/0", 64, 4
	if err := traces.WriteAll(filepath.Join(traceDir, "01-prefill-r1.parquet"), m, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	gpu := writeFile(t, traceDir, "gpu.csv", "an earlier calibration's samples\n")
	log, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64")
	if err == nil {
		t.Fatal("calibration against an engine that fails every request succeeded")
	}
	if got := testfs.Names(t, traceDir); len(got) != 0 {
		t.Errorf("left in %s after a calibration that wrote no run: %v, want nothing of the earlier one", traceDir, got)
	}
	if !strings.Contains(log, "removed the 1 run trace of an earlier calibration") || !strings.Contains(log, "removed the GPU samples of an earlier calibration, "+gpu+"\n") {
		t.Errorf("output does not say the earlier samples were removed with the traces:\n%s", log)
	}
}

// A refit of one run says "1 run", and its profile "1 trace", not "1 runs"
// and "1 traces". The run is written with known token times, not measured
// live: how many steps a live run's times show depends on the host's
// timing, and too few fail the fit before the profile line is printed.
func TestCalibrateRefitCountsOneRun(t *testing.T) {
	one := t.TempDir()
	m := traces.Meta{Model: "m", Device: "cpu"}
	m.Set("calibrate_run", "prefill-c1-r1")
	m.Set("calibrate_kind", calibrate.KindPrefill)
	m.Set("concurrency", "1")
	var rows []*traces.Request
	t0 := int64(0)
	for i, prompt := range []int32{16, 32, 48, 64, 16, 32, 48, 64} {
		r := &traces.Request{}
		r.Reset()
		r.ID = fmt.Sprintf("prefill-c1-r1/%d", i)
		r.PromptTokens, r.OutputTokens, r.UsagePrompt, r.UsageOutput = prompt, 8, prompt, 8
		r.Arrival, r.ScheduledSend, r.ActualSend = t0, t0, t0
		// served alone: a prefill of 2 ms + 0.1 ms a prompt token, then
		// decode steps of 5 ms, each a little off so that no two match
		tok := t0 + int64(2e6+1e5*float64(prompt)) + int64(i)*7e3
		for k := range 8 {
			r.TokenTimes = append(r.TokenTimes, tok)
			tok += int64(5e6) + int64((i*8+k)%5)*31e3
		}
		r.FirstToken, r.LastToken, r.HTTPStatus, r.FinishReason = r.TokenTimes[0], r.TokenTimes[7], 200, "length"
		rows = append(rows, r)
		t0 = r.LastToken + 1e6
	}
	if err := traces.WriteAll(filepath.Join(one, "01-prefill-c1-r1.parquet"), m, rows); err != nil {
		t.Fatal(err)
	}
	text, err := run(t, "calibrate", "--out", filepath.Join(t.TempDir(), "q.json"), "--from-traces", one)
	if err != nil {
		t.Fatalf("refit of one run: %v\n%s", err, text)
	}
	if !strings.Contains(text, "refitting 1 run from") || !strings.Contains(text, ", 1 trace\n") {
		t.Errorf("refit of one run says:\n%s", text)
	}
}
