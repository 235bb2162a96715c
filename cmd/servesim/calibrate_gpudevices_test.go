package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
	"github.com/servesim/servesim/traces"
)

// gpuCSVRows is a gpu.csv of n rounds on a host of two H100s: the engine
// on device 0 (100 W idle + 500 W × utilization), device 1 idle at 60 W.
func gpuCSVRows(n int, name1 string) string {
	var b strings.Builder
	b.WriteString("t_ns,unix_ns,index,uuid,name,mem_used_bytes,mem_total_bytes,power_w,energy_mj,sm_util_pct,sm_clock_mhz,mem_clock_mhz\n")
	for i := 0; i < n; i++ {
		u := float64(i%11) * 10
		fmt.Fprintf(&b, "%d,0,0,GPU-aaaa,NVIDIA H100 80GB HBM3,,,%g,,%g,,\n", i*1e8, 100+5*u, u)
		fmt.Fprintf(&b, "%d,0,1,GPU-bbbb,%s,,,60,,0,,\n", i*1e8, name1)
	}
	return b.String()
}

// The power fit takes the samples of the engine's devices only: the idle
// GPUs of the host, at 0% utilization, would pull the fitted idle power
// toward theirs.
func TestCalibratePowerFitsTheSelectedDevices(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "gpu.csv", gpuCSVRows(44, "NVIDIA H100 80GB HBM3"))
	for _, spec := range []string{"0", "GPU-aaaa"} {
		sel, err := telemetry.ParseDeviceSelection(spec)
		if err != nil {
			t.Fatal(err)
		}
		samples, devs, err := readPowerCSV(path, sel)
		if err != nil {
			t.Fatal(err)
		}
		fit, err := calibrate.FitPower(samples)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fit.Idle.Value-100) > 1e-6 || math.Abs(fit.Dynamic.Value-500) > 1e-6 {
			t.Errorf("--gpu-devices %s: fit %.1f W + %.1f W × utilization, want 100 W + 500 W", spec, fit.Idle.Value, fit.Dynamic.Value)
		}
		if len(devs) != 1 || devs[0].Index != 0 || devs[0].UUID != "GPU-aaaa" || devs[0].Name != "NVIDIA H100 80GB HBM3" {
			t.Errorf("--gpu-devices %s: devices %+v, want device 0 only", spec, devs)
		}
	}
	// no selection: every device, both recorded
	_, devs, err := readPowerCSV(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 {
		t.Errorf("no selection: devices %+v, want both", devs)
	}
	// a selected device the samples lack
	sel, _ := telemetry.ParseDeviceSelection("0,3")
	if _, _, err := readPowerCSV(path, sel); err == nil || !strings.Contains(err.Error(), "3") {
		t.Errorf("device 3 not sampled: err %v, want one naming it", err)
	}
	// devices of different models: one fit cannot price both
	mixed := writeFile(t, dir, "mixed.csv", gpuCSVRows(44, "NVIDIA A100-SXM4-80GB"))
	if _, _, err := readPowerCSV(mixed, nil); err == nil || !strings.Contains(err.Error(), "A100") {
		t.Errorf("mixed models: err %v, want one naming them", err)
	}
}

func TestParseDeviceSelection(t *testing.T) {
	for _, bad := range []string{"", "0,", "-1", "x", "0,0", "1.5"} {
		if _, err := telemetry.ParseDeviceSelection(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	sel, err := telemetry.ParseDeviceSelection(" 2, GPU-1234 ,MIG-5")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i    int
		uuid string
		want bool
	}{{2, "GPU-x", true}, {0, "GPU-1234", true}, {1, "MIG-5", true}, {0, "GPU-9", false}} {
		if got := sel.Has(c.i, c.uuid); got != c.want {
			t.Errorf("Has(%d, %q) = %v, want %v", c.i, c.uuid, got, c.want)
		}
	}
}

// A refit from traces refits power from the GPU samples beside them, on
// the devices the live calibration was told (--gpu-devices, which a
// refit may also give, and which then wins).
func TestCalibrateRefitFitsPowerFromTheSamples(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu", "--gpu-devices", "GPU-aaaa"); err != nil {
		t.Fatal(err)
	}
	traceDir := filepath.Join(dir, "p.traces")
	// the samples NVML would have written beside the runs
	writeFile(t, traceDir, "gpu.csv", gpuCSVRows(44, "NVIDIA H100 80GB HBM3"))
	out := filepath.Join(dir, "q.json")
	text, err := run(t, "calibrate", "--out", out, "--from-traces", traceDir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := calibrate.LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	if pw := p.Power; pw == nil || math.Abs(pw.Idle.Value-100) > 1e-6 || math.Abs(pw.Dynamic.Value-500) > 1e-6 || len(pw.Devices) != 1 || pw.Devices[0].UUID != "GPU-aaaa" {
		t.Fatalf("refit's power %+v, want 100 W + 500 W × utilization on GPU-aaaa alone\n%s", pw, text)
	}
	if strings.Contains(text, "not refitted") {
		t.Errorf("refit says power was not refitted:\n%s", text)
	}
	// the flag wins over the traces
	if _, err := run(t, "calibrate", "--out", out, "--from-traces", traceDir, "--gpu-devices", "0,1"); err != nil {
		t.Fatal(err)
	}
	if p, err = calibrate.LoadProfile(out); err != nil {
		t.Fatal(err)
	}
	if pw := p.Power; pw == nil || len(pw.Devices) != 2 {
		t.Errorf("refit with --gpu-devices 0,1: power %+v, want both devices", pw)
	}
	// no samples: no power fit, said so
	os.Remove(filepath.Join(traceDir, "gpu.csv"))
	if text, err = run(t, "calibrate", "--out", out, "--from-traces", traceDir); err != nil {
		t.Fatal(err)
	}
	if p, err = calibrate.LoadProfile(out); err != nil || p.Power != nil || !strings.Contains(text, "power: not refitted (no GPU samples") {
		t.Errorf("refit without gpu.csv: power %+v, %v\n%s", p.Power, err, text)
	}
}

// Traces that disagree on the engine's GPUs, or name none sensibly, are
// refused naming the file.
func TestRefitGPUDevicesFromTraces(t *testing.T) {
	with := func(path, v string) *calibrate.RunResult {
		var m traces.Meta
		if v != "" {
			m.Set(calibrate.GPUDevicesKey, v)
		}
		return &calibrate.RunResult{Meta: m, Trace: &calibrate.TraceRef{Path: path}}
	}
	runs := []*calibrate.RunResult{with("a.parquet", "0,GPU-aaaa"), with("b.parquet", "")}
	if sel, err := refitGPUDevices(runs); err != nil || strings.Join(sel, ",") != "0,GPU-aaaa" {
		t.Errorf("selection %q, %v; want 0,GPU-aaaa", sel, err)
	}
	if sel, err := refitGPUDevices(runs[1:]); err != nil || sel != nil {
		t.Errorf("older traces: selection %q, %v; want none", sel, err)
	}
	runs[1] = with("b.parquet", "1")
	if _, err := refitGPUDevices(runs); err == nil || !strings.Contains(err.Error(), `a.parquet was measured with gpu-devices "0,GPU-aaaa", b.parquet with "1"`) {
		t.Errorf("traces of two selections: err = %v", err)
	}
	runs = runs[1:]
	runs[0] = with("b.parquet", ",")
	if _, err := refitGPUDevices(runs); err == nil || !strings.Contains(err.Error(), `b.parquet: metadata gpu_devices = ","`) {
		t.Errorf("no selection: err = %v", err)
	}
}

// Traces that name the same GPUs written two ways ("01" for 1, another
// order, spaces) agree; a key present but empty is refused naming the
// file, as a list with an empty entry is.
func TestRefitGPUDevicesComparedAsSelections(t *testing.T) {
	with := func(path, v string) *calibrate.RunResult {
		var m traces.Meta
		m.Set(calibrate.GPUDevicesKey, v)
		return &calibrate.RunResult{Meta: m, Trace: &calibrate.TraceRef{Path: path}}
	}
	for _, other := range []string{"01,GPU-aaaa", "GPU-aaaa,1", "1, GPU-aaaa"} {
		runs := []*calibrate.RunResult{with("a.parquet", "1,GPU-aaaa"), with("b.parquet", other)}
		if sel, err := refitGPUDevices(runs); err != nil || strings.Join(sel, ",") != "1,GPU-aaaa" {
			t.Errorf("traces of %q and %q: selection %q, %v; want 1,GPU-aaaa", "1,GPU-aaaa", other, sel, err)
		}
	}
	runs := []*calibrate.RunResult{with("a.parquet", "1"), with("b.parquet", "")}
	if _, err := refitGPUDevices(runs); err == nil || !strings.Contains(err.Error(), `b.parquet: metadata gpu_devices = ""`) {
		t.Errorf("gpu_devices present but empty: err = %v", err)
	}
}

// twoGPUs is a host of two GPUs at a constant draw.
type twoGPUs struct{}

func (twoGPUs) Sample() ([]telemetry.DeviceSample, error) {
	var out []telemetry.DeviceSample
	for i, uuid := range []string{"GPU-aaaa", "GPU-bbbb"} {
		s := telemetry.NewDeviceSample(i)
		s.UUID, s.Name, s.PowerW, s.SMUtil = uuid, "NVIDIA H100 80GB HBM3", 100, 0
		out = append(out, s)
	}
	return out, nil
}

// A --gpu-devices the host lacks is refused before the live runs, which
// would otherwise take minutes to end in a profile without a power fit.
func TestCalibrateRefusesAGPUTheHostLacksBeforeTheRuns(t *testing.T) {
	startNVML = func(ctx context.Context, interval time.Duration, path string, devices telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return telemetry.StartGPU(ctx, twoGPUs{}, telemetry.GPUConfig{Interval: interval, Path: path, Devices: devices})
	}
	defer func() { startNVML = telemetry.StartNVML }()
	srv := replaytest.New(replaytest.Options{Record: true})
	defer srv.Close()
	dir := t.TempDir()
	_, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu", "--gpu-devices", "0,GPU-cccc")
	if err == nil || !strings.Contains(err.Error(), `"GPU-cccc"`) || !strings.Contains(err.Error(), "GPU-bbbb") {
		t.Fatalf("err = %v, want the device the host lacks named, with the host's", err)
	}
	if n := len(srv.Requests()); n > 0 {
		t.Errorf("%d requests sent before the refusal, want none", n)
	}
	if names := testfs.Names(t, dir); len(names) > 0 {
		t.Errorf("files left: %v, want none", names)
	}
}

// failingGPU is a driver whose every sample fails.
type failingGPU struct{}

func (failingGPU) Sample() ([]telemetry.DeviceSample, error) {
	return nil, errors.New("nvml: GPU is lost")
}

// The power fit says why the samples could not be used, as record and
// verify do, rather than fitting to whatever reached the file.
func TestCalibrateSaysWhyGPUSamplingFailed(t *testing.T) {
	startNVML = func(ctx context.Context, interval time.Duration, path string, devices telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return telemetry.StartGPU(ctx, failingGPU{}, telemetry.GPUConfig{Interval: interval, Path: path, Devices: devices, Logger: slog.New(slog.DiscardHandler)})
	}
	defer func() { startNVML = telemetry.StartNVML }()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if err != nil {
		t.Fatalf("calibrate: %v\n%s", err, out)
	}
	if !strings.Contains(out, "power: not fitted (telemetry: every GPU sample failed)") {
		t.Errorf("output lacks the sampling failure:\n%s", out)
	}
}

// An empty cell is a reading the device did not report, and its row is
// left out of the fit; a cell that holds something else than a number is
// a damaged file, named with its line and column, not a row quietly lost.
func TestReadPowerCSVNamesAMalformedCell(t *testing.T) {
	dir := t.TempDir()
	head := "t_ns,unix_ns,index,uuid,name,mem_used_bytes,mem_total_bytes,power_w,energy_mj,sm_util_pct,sm_clock_mhz,mem_clock_mhz\n"
	good := "0,0,0,GPU-aaaa,H100,,,100,,10,,\n"
	unmeasured := writeFile(t, dir, "unmeasured.csv", head+good+"1,0,0,GPU-aaaa,H100,,,,,20,,\n")
	if samples, _, err := readPowerCSV(unmeasured, nil); err != nil || len(samples) != 1 {
		t.Errorf("an empty power cell: %d samples, err %v; want the row left out, no error", len(samples), err)
	}
	for _, c := range []struct{ row, col string }{
		{"1,0,0,GPU-aaaa,H100,,,1OO,,20,,\n", "power_w"},
		{"1,0,0,GPU-aaaa,H100,,,100,,2O,,\n", "sm_util_pct"},
		{"1x,0,0,GPU-aaaa,H100,,,100,,20,,\n", "t_ns"},
	} {
		path := writeFile(t, dir, c.col+".csv", head+good+c.row)
		_, _, err := readPowerCSV(path, nil)
		if err == nil || !strings.Contains(err.Error(), path+":3") || !strings.Contains(err.Error(), c.col) {
			t.Errorf("a malformed %s cell: err %v, want one naming %s:3 and the column", c.col, err, path)
		}
	}
}
