package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/verify"
)

// runPort is where deploy/gpu/run.sh starts its engines in this test,
// away from the walkthrough's and `make test-e2e`'s.
const runPort = "11439"

// TestE2EGPURunScriptOnCPU runs the GPU machine's one-command loop
// (deploy/gpu/run.sh) with ENGINE=cpu against the CPU test engine, as the
// GPU run would: calibrate, sweep with the profile, verify the top 3
// live, report. It checks every artefact; accuracy is the calibration
// acceptance test's business.
func TestE2EGPURunScriptOnCPU(t *testing.T) {
	engine(t) // only with the live tests
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".cache/bin/ollama")); err != nil {
		liveUnavailable(t, "no Ollama binary (scripts/engine.sh install): %v", err)
	}
	if ln, err := net.Listen("tcp", "127.0.0.1:"+runPort); err != nil {
		liveUnavailable(t, "port %s is busy: %v", runPort, err)
	} else {
		ln.Close()
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "servesim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command("bash", filepath.Join(root, "deploy/gpu/run.sh"))
	cmd.Env = append(os.Environ(), "ENGINE=cpu", "OUT="+out, "SERVESIM="+bin, "PORT="+runPort)
	t0 := time.Now()
	log, err := cmd.CombinedOutput()
	t.Logf("run.sh took %v:\n%s", time.Since(t0).Round(time.Second), log)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == exitToleranceFailed) {
		t.Fatalf("run.sh: %v", err)
	}

	if p, err := calibrate.LoadProfile(filepath.Join(out, "profile.json")); err != nil {
		t.Error(err)
	} else if one := p.Step.Curve().At(1); p.Device != "cpu" || one <= 0 {
		t.Errorf("profile: device %q, one-token step %v s", p.Device, one)
	}
	sw, err := sweep.ReadFile(filepath.Join(out, "sweep", "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Rows) != 3 || !strings.Contains(sw.Meta.Settings, "profile_sha256=") {
		t.Errorf("sweep: %d rows, settings %q: want the 3 slot counts, swept with the profile", len(sw.Rows), sw.Meta.Settings)
	}
	var res verify.Result
	if data, err := os.ReadFile(filepath.Join(out, "verify", "verify.json")); err != nil || json.Unmarshal(data, &res) != nil {
		t.Fatalf("verify.json: %v", err)
	}
	if len(res.Candidates) == 0 || res.Incomplete != 0 {
		t.Errorf("verify: %d candidates, %d not measured", len(res.Candidates), res.Incomplete)
	}
	for _, c := range res.Candidates {
		if c.Status != verify.StatusOK || c.Measured.Completed != int64(res.Requests) {
			t.Errorf("candidate %s: %s (%s), %d/%d completed", c.Label, c.Status, c.Detail, c.Measured.Completed, res.Requests)
		}
	}
	// --refit: every candidate's run gets its step bias, and the refitted profile is written.
	if r := res.Refit; r == nil || r.Error != "" || len(r.StepBiasBefore) != len(res.Candidates) {
		t.Errorf("verify --refit: %+v, want a step bias per candidate", r)
	}
	for _, f := range []string{"verify.txt", "report.html", "report.md", "run.log", "trace.parquet", "profile.refit.json"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v, %d bytes", f, err, len(data))
		}
	}
	if table, _ := os.ReadFile(filepath.Join(out, "verify.txt")); !strings.Contains(string(table), "Kendall") {
		t.Errorf("verify.txt has no ranking:\n%s", table)
	}
	if html, _ := os.ReadFile(filepath.Join(out, "report.html")); !strings.Contains(string(html), "measured") {
		t.Error("report.html has no predicted-vs-measured section")
	}
}
