package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const sec = int64(time.Second)

func dev(index int, t int64, powerW float64, energyMJ int64, mem int64) DeviceSample {
	s := NewDeviceSample(index)
	s.T, s.PowerW, s.EnergyMJ, s.MemUsed = t, powerW, energyMJ, mem
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestSummarizeGPUPrefersTheEnergyCounter(t *testing.T) {
	// Two devices, 3 s. Power says 100 W and 200 W; the counters say 330 J
	// and 600 J. The counter must win.
	var rounds [][]DeviceSample
	for i := int64(0); i <= 3; i++ {
		rounds = append(rounds, []DeviceSample{
			dev(0, i*sec, 100, 1_000_000+i*110_000, 10+i),
			dev(1, i*sec, 200, 5_000_000+i*200_000, 20),
		})
	}
	s := SummarizeGPU(rounds)
	if s.Devices != 2 || s.Samples != 4 || !near(s.WallSeconds, 3) || !near(s.DeviceSeconds, 6) {
		t.Errorf("counts: %+v", s)
	}
	if s.EnergySource != "counter" || !near(s.EnergyJ, 930) || !near(s.MeanPowerW, 310) {
		t.Errorf("energy: %v J from %q, mean %v W", s.EnergyJ, s.EnergySource, s.MeanPowerW)
	}
	if s.PeakMemBytes != 20 || s.PerDevice[0].PeakMemBytes != 13 || !near(s.PerDevice[0].EnergyJ, 330) {
		t.Errorf("per device: %+v", s.PerDevice)
	}
	if got := s.JoulesPerToken(93); !near(got, 10) {
		t.Errorf("J/token %v, want 10", got)
	}
}

func TestSummarizeGPUIntegratesPowerWithoutACounter(t *testing.T) {
	// Power ramps 100 → 300 W over 2 s in unequal steps: trapezoid gives
	// (100+200)/2*0.5 + (200+300)/2*1.5 = 75 + 375 = 450 J.
	rounds := [][]DeviceSample{
		{dev(0, 0, 100, Missing, Missing)},
		{dev(0, sec/2, 200, Missing, Missing)},
		{dev(0, 2*sec, 300, Missing, Missing)},
	}
	s := SummarizeGPU(rounds)
	if s.EnergySource != "power" || !near(s.EnergyJ, 450) || !near(s.MeanPowerW, 225) {
		t.Errorf("got %v J from %q, mean %v W", s.EnergyJ, s.EnergySource, s.MeanPowerW)
	}
	if s.PeakMemBytes != Missing {
		t.Errorf("peak memory %d, want Missing", s.PeakMemBytes)
	}
}

func TestSummarizeGPUCounterResetFallsBackToPower(t *testing.T) {
	rounds := [][]DeviceSample{
		{dev(0, 0, 100, 9_000_000, 1)},
		{dev(0, sec, 100, 10, 1)}, // driver reloaded
	}
	if s := SummarizeGPU(rounds); s.EnergySource != "power" || !near(s.EnergyJ, 100) {
		t.Errorf("got %v J from %q", s.EnergyJ, s.EnergySource)
	}
}

func TestSummarizeGPUMixedSources(t *testing.T) {
	rounds := [][]DeviceSample{
		{dev(0, 0, 50, 0, 1), dev(1, 0, 50, Missing, 1)},
		{dev(0, sec, 50, 70_000, 1), dev(1, sec, 50, Missing, 1)},
	}
	if s := SummarizeGPU(rounds); s.EnergySource != "mixed" || !near(s.EnergyJ, 120) {
		t.Errorf("got %v J from %q", s.EnergyJ, s.EnergySource)
	}
}

func TestSummarizeGPUUnknownIsNaNNotZero(t *testing.T) {
	// One device reports neither power nor energy: total energy is unknown.
	rounds := [][]DeviceSample{
		{dev(0, 0, 50, Missing, 1), dev(1, 0, math.NaN(), Missing, 1)},
		{dev(0, sec, 50, Missing, 1), dev(1, sec, math.NaN(), Missing, 1)},
	}
	s := SummarizeGPU(rounds)
	if !math.IsNaN(s.EnergyJ) || !math.IsNaN(s.MeanPowerW) || s.EnergySource != "" || !math.IsNaN(s.JoulesPerToken(10)) {
		t.Errorf("got %+v", s)
	}
	if !near(s.DeviceSeconds, 2) {
		t.Errorf("device-seconds %v, want 2", s.DeviceSeconds)
	}
	// A single round has no duration.
	one := SummarizeGPU(rounds[:1])
	if !math.IsNaN(one.WallSeconds) || !math.IsNaN(one.EnergyJ) {
		t.Errorf("one round: %+v", one)
	}
	if e := SummarizeGPU(nil); !math.IsNaN(e.EnergyJ) || e.Devices != 0 {
		t.Errorf("no rounds: %+v", e)
	}
}

func TestGPUSummaryJSONWritesNullForUnknown(t *testing.T) {
	b, err := json.Marshal((*GPURecorder)(nil).Stop())
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{`"energy_j":null`, `"mean_power_w":null`, `"device_seconds":null`, `"peak_mem_bytes":null`, `"error":"telemetry: no NVIDIA driver`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
}

// fakeSource is a GPU whose counter rises 100 J per call.
type fakeSource struct {
	mu    sync.Mutex
	calls int
	fail  bool
}

func (f *fakeSource) Sample() ([]DeviceSample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail {
		return nil, errors.New("gpu fell off the bus")
	}
	s := NewDeviceSample(0)
	s.UUID, s.Name, s.PowerW, s.EnergyMJ = "GPU-1", "Fake, \"H100\"", 250.5, int64(f.calls)*100_000
	s.MemUsed, s.MemTotal, s.SMUtil = 1<<30, 80<<30, 97
	return []DeviceSample{s}, nil
}

func (f *fakeSource) n() int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls }

func TestGPURecorderWritesCSVAndSummarises(t *testing.T) {
	src := &fakeSource{}
	path := filepath.Join(t.TempDir(), "run.gpu.csv")
	r, err := StartGPU(context.Background(), src, GPUConfig{Interval: 2 * time.Millisecond, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	for src.n() < 4 {
		time.Sleep(time.Millisecond)
	}
	s := r.Stop()
	calls := src.n()
	if s.Err != nil || s.Samples != calls || s.Devices != 1 || s.EnergySource != "counter" {
		t.Fatalf("summary %+v after %d calls", s, calls)
	}
	if !near(s.EnergyJ, float64(calls-1)*100) {
		t.Errorf("energy %v J, want %v", s.EnergyJ, (calls-1)*100)
	}
	if err := r.Publish(); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	if strings.Join(rows[0], ",") != strings.Join(gpuHeader, ",") || len(rows) != calls+1 {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	if got := strings.Join(rows[1][2:], "|"); got != `0|GPU-1|Fake, "H100"|1073741824|85899345920|250.5|100000|97||` {
		t.Errorf("row 1: %s", got)
	}
}

func TestGPURecorderAllSamplesFail(t *testing.T) {
	r, err := StartGPU(context.Background(), &fakeSource{fail: true}, GPUConfig{Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	s := r.Stop()
	if s.Err == nil || !math.IsNaN(s.EnergyJ) || s.Samples != 0 {
		t.Errorf("summary %+v", s)
	}
}

func TestSidecarPath(t *testing.T) {
	for in, want := range map[string]string{
		"run.parquet":      "run.gpu.csv",
		"/a/b/run.arrows":  "/a/b/run.gpu.csv",
		"noext":            "noext.gpu.csv",
		"dir.v2/trace.csv": "dir.v2/trace.gpu.csv",
	} {
		if got := SidecarPath(in, "gpu"); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}
