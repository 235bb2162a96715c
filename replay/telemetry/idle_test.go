package telemetry

import (
	"strings"
	"testing"
)

// busyIdle is two devices sampled every second for 5 s: device 0 runs the
// engine (its SM utilization and memory move), device 1 sits idle at 0%
// with the same memory used throughout.
func busyIdle(util1 func(i int64) int32, mem1 func(i int64) int64) [][]DeviceSample {
	var rounds [][]DeviceSample
	for i := int64(0); i <= 5; i++ {
		busy := dev(0, i*sec, 300, i*300_000, 40<<30+i<<20)
		busy.UUID, busy.SMUtil = "GPU-busy", int32(60+i)
		idle := dev(1, i*sec, 60, i*60_000, mem1(i))
		idle.UUID, idle.SMUtil = "GPU-idle", util1(i)
		rounds = append(rounds, []DeviceSample{busy, idle})
	}
	return rounds
}

func TestSummarizeGPUBetweenNamesADeviceIdleThroughTheWindow(t *testing.T) {
	rounds := busyIdle(func(int64) int32 { return 0 }, func(int64) int64 { return 500 << 20 })
	g := SummarizeGPUBetween(rounds, 3*sec/2, 4*sec)
	if g.Err != nil {
		t.Fatal(g.Err)
	}
	for _, want := range []string{"device 1 (GPU-idle)", "0% SM utilization", "1.500–4.000 s"} {
		if !strings.Contains(g.Idle, want) {
			t.Errorf("Idle = %q, want it to hold %q", g.Idle, want)
		}
	}
	if strings.Contains(g.Idle, "device 0") {
		t.Errorf("Idle = %q names the busy device", g.Idle)
	}
	// The energy is still measured: the warning does not refuse the run.
	if g.EnergySource != "counter" || !near(g.EnergyJ, 2.5*360) {
		t.Errorf("energy %v J from %q, want 900 J from the counter", g.EnergyJ, g.EnergySource)
	}
}

func TestSummarizeGPUBetweenDoesNotJudgeAWorkingOrSilentDevice(t *testing.T) {
	for name, rounds := range map[string][][]DeviceSample{
		// a kernel ran in the sample just after the window's end
		"util after start": busyIdle(func(i int64) int32 { return int32(i / 4) }, func(int64) int64 { return 500 << 20 }),
		// memory was allocated during the window though no kernel showed
		"memory moved": busyIdle(func(int64) int32 { return 0 }, func(i int64) int64 { return 500<<20 + i }),
		// the device does not report utilization in one sample
		"util unreported": busyIdle(func(i int64) int32 {
			if i == 3 {
				return Missing
			}
			return 0
		}, func(int64) int64 { return 500 << 20 }),
	} {
		if g := SummarizeGPUBetween(rounds, 3*sec/2, 4*sec); g.Idle != "" {
			t.Errorf("%s: Idle = %q, want none", name, g.Idle)
		}
	}
	// Utilization never reported at all (the fake's default): nothing said.
	rounds := [][]DeviceSample{{dev(0, 0, 50, 0, 1)}, {dev(0, sec, 50, 50_000, 1)}}
	if g := SummarizeGPUBetween(rounds, 0, sec); g.Idle != "" {
		t.Errorf("unreported utilization: Idle = %q, want none", g.Idle)
	}
}

// A window between two samples holds no utilization reading of its own:
// the next sample's covers the driver's last sample period, which can lie
// wholly after the window's end, when the engine's GPU had gone quiet.
func TestSummarizeGPUBetweenDoesNotJudgeAWindowBetweenTwoSamples(t *testing.T) {
	var rounds [][]DeviceSample
	for i := int64(0); i <= 3; i++ {
		d := dev(0, i*sec, 300, i*300_000, 40<<30)
		d.UUID, d.SMUtil = "GPU-engine", 0
		rounds = append(rounds, []DeviceSample{d})
	}
	if g := SummarizeGPUBetween(rounds, 12*sec/10, 17*sec/10); g.Idle != "" {
		t.Errorf("a window with no sample inside: Idle = %q, want none", g.Idle)
	}
	// A sample inside the window that read 0% still tells.
	if g := SummarizeGPUBetween(rounds, 12*sec/10, 5*sec/2); !strings.Contains(g.Idle, "device 0 (GPU-engine)") {
		t.Errorf("a window with a sample inside: Idle = %q, want device 0 named", g.Idle)
	}
}
