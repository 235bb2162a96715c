package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stubbedRunScript runs deploy/gpu/run.sh with ENGINE=gpu from dir, with
// stand-ins for the engine's Python (the engine sleeps, every health probe
// succeeds), for nvidia-smi (it names the GPU in $STUB_GPU, an H200 unless
// env sets it) and for servesim (it logs its arguments and exits 0, or with
// the status in $STUB_FAIL_<subcommand>). env adds to the environment; a
// SERVESIM there replaces the stand-in's absolute path. It returns the
// script's output, its exit status and the stand-in servesim's calls.
// The script and its stand-ins are processes of their own, touching
// nothing of this package's, so the tests that run it run in parallel.
func stubbedRunScript(t *testing.T, dir string, env ...string) (string, int, []string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(dir, "calls")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.Mkdir(filepath.Join(dir, "path"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A host of several GPUs: a UUID query answers for the one -i names.
	write("path/nvidia-smi", `#!/usr/bin/env bash
if [[ $* == *uuid* ]]; then [[ $* =~ -i\ ([^ ]+) && ${BASH_REMATCH[1]} != 9 ]] || exit 6; echo "GPU-stub-${BASH_REMATCH[1]#GPU-stub-}"; exit; fi
echo "${STUB_GPU:-NVIDIA H200}"
`)
	python := write("python", "#!/usr/bin/env bash\n[[ $1 == -c ]] && exit 0\nexec sleep 60\n")
	servesim := write("servesim", `#!/usr/bin/env bash
echo "$*" >> "$STUB_CALLS"
fail=STUB_FAIL_${1//-/_}
exit "${!fail:-0}"
`)
	cmd := exec.Command("bash", filepath.Join(root, "deploy/gpu/run.sh"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ENGINE=gpu", "PYTHON="+python, "SERVESIM="+servesim, "OUT=out",
		"PORT=1", "CUDA_VISIBLE_DEVICES=", "STUB_CALLS="+calls, "PATH="+filepath.Join(dir, "path")+":"+os.Getenv("PATH"))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	rc := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		rc = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(calls)
	return string(out), rc, strings.Split(strings.TrimSpace(string(data)), "\n")
}

// A servesim built beside the repository, as the script's own comment
// suggests, is named by a path relative to where the script is started,
// not to the repository root the script moves to.
func TestRunScriptTakesARelativeServesim(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	stub := "#!/usr/bin/env bash\necho \"$*\" >> \"$STUB_CALLS\"\n"
	if err := os.WriteFile(filepath.Join(dir, "bin", "servesim"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	out, rc, calls := stubbedRunScript(t, dir, "SERVESIM=bin/servesim")
	if rc != 0 || !strings.HasPrefix(calls[0], "--version") || len(calls) < 2 || !strings.HasPrefix(calls[1], "calibrate ") {
		t.Fatalf("run.sh with SERVESIM=bin/servesim: exit %d, calls %q:\n%s", rc, calls, out)
	}
}

// run.sh's exit status is verify's (0, 4, 5, 6) or 1 when a step before
// it fails: a failed step's own status (2 for a usage error, 127 for a
// missing command) would stand for neither.
func TestRunScriptFailedStepExits1(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"calibrate", "simulate"} {
		out, rc, calls := stubbedRunScript(t, t.TempDir(), "STUB_FAIL_"+sub+"=2")
		if rc != 1 {
			t.Errorf("%s exiting 2: run.sh exit %d, want 1; calls %q:\n%s", sub, rc, calls, out)
		}
	}
	// verify's own statuses pass through, after the report.
	out, rc, calls := stubbedRunScript(t, t.TempDir(), "STUB_FAIL_verify=4")
	if rc != 4 || !strings.HasPrefix(calls[len(calls)-1], "report ") {
		t.Errorf("verify exiting 4: run.sh exit %d, want 4 after the report; calls %q:\n%s", rc, calls, out)
	}
}

// The profile and the sweep name the GPU the engine runs on: an H100 is
// neither calibrated nor swept as an H200, and a GPU with no sweep is
// refused before anything starts.
func TestRunScriptNamesTheGPU(t *testing.T) {
	t.Parallel()
	out, rc, calls := stubbedRunScript(t, t.TempDir(), "STUB_GPU=NVIDIA H100 80GB HBM3")
	all := strings.Join(calls, "\n")
	if rc != 0 || !strings.Contains(all, "--device H100-SXM-80G") || !strings.Contains(all, "--sweep deploy/gpu/h100-sweep.toml") ||
		strings.Contains(all, "H200") {
		t.Errorf("on an H100: exit %d, calls %q:\n%s", rc, calls, out)
	}
	out, rc, calls = stubbedRunScript(t, t.TempDir(), "STUB_GPU=NVIDIA A100-SXM4-80GB")
	if rc != 1 || !strings.Contains(out, `GPU "NVIDIA A100-SXM4-80GB"`) || len(calls) > 1 {
		t.Errorf("on an A100: exit %d, calls %q:\n%s", rc, calls, out)
	}
}

// NVML samples every GPU of the host: on a host of several, calibrate's
// power fit and verify's energy take only the engine's GPU, which the
// engine is pinned to (the first CUDA_VISIBLE_DEVICES names, else the
// first nvidia-smi lists).
func TestRunScriptSamplesTheEnginesGPU(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ visible, want string }{{"", "GPU-stub-0"}, {"2,3", "GPU-stub-2"}} {
		out, rc, calls := stubbedRunScript(t, t.TempDir(), "CUDA_VISIBLE_DEVICES="+tc.visible)
		var calibrate, verify string
		for _, c := range calls {
			switch {
			case strings.HasPrefix(c, "calibrate "):
				calibrate = c
			case strings.HasPrefix(c, "verify "):
				verify = c
			}
		}
		if sel := "--gpu-devices " + tc.want; rc != 0 || !strings.Contains(calibrate, sel) || !strings.Contains(verify, sel) {
			t.Errorf("CUDA_VISIBLE_DEVICES=%q: exit %d; want %s in calibrate and verify, calls %q:\n%s", tc.visible, rc, sel, calls, out)
		}
	}
	// A GPU the host lacks is refused before anything starts.
	out, rc, calls := stubbedRunScript(t, t.TempDir(), "CUDA_VISIBLE_DEVICES=9")
	if rc != 1 || !strings.Contains(out, `GPU "9" (CUDA_VISIBLE_DEVICES): nvidia-smi lists no such GPU`) || len(calls) > 1 {
		t.Errorf("CUDA_VISIBLE_DEVICES=9 on a host without it: exit %d, calls %q:\n%s", rc, calls, out)
	}
}

// The calibration's concurrency ramp climbs to the engine's --max-parallel:
// the fit then sees decode batches as wide as the engine runs (the sweep's
// are 16–128), not only the quick plan's default top of 8 clients. It stops
// there: more clients than slots would make calibrate take the paged engine
// for a slot engine (llama.cpp's idle slots keeping their tokens).
func TestRunScriptRampReachesTheEnginesSlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	engineArgs := filepath.Join(dir, "engine-args")
	python := filepath.Join(dir, "python-args")
	stub := "#!/usr/bin/env bash\n[[ $1 == -c ]] && exit 0\necho \"$*\" >> " + engineArgs + "\nexec sleep 60\n"
	if err := os.WriteFile(python, []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	out, rc, calls := stubbedRunScript(t, dir, "PYTHON="+python)
	started, _ := os.ReadFile(engineArgs)
	flag := func(args, name, def string) string {
		f := strings.Fields(args)
		for i := range f[:max(len(f)-1, 0)] {
			if f[i] == name {
				return f[i+1]
			}
		}
		return def
	}
	slots := flag(string(started), "--max-parallel", "")
	ramp := "8 (the quick plan's)"
	for _, c := range calls {
		if strings.HasPrefix(c, "calibrate ") {
			ramp = flag(c, "--max-concurrency", ramp)
		}
	}
	if rc != 0 || slots == "" || ramp != slots {
		t.Errorf("exit %d: the engine runs --max-parallel %q, calibrate's ramp tops at %s; want them equal\nengine: %s\ncalls %q:\n%s",
			rc, slots, ramp, started, calls, out)
	}
}
