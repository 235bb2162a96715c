package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// wrongGPUs are two GPUs the engine does not run on: each reads 0% SM
// utilization and the same memory used while drawing idle power.
type wrongGPUs struct {
	mu    sync.Mutex
	start time.Time
}

func (g *wrongGPUs) Sample() ([]telemetry.DeviceSample, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.start.IsZero() {
		g.start = time.Now()
	}
	var round []telemetry.DeviceSample
	for i, uuid := range []string{"GPU-aa", "GPU-bb"} {
		s := telemetry.NewDeviceSample(i)
		s.UUID, s.PowerW, s.MemUsed, s.SMUtil = uuid, 60, 500<<20, 0
		s.EnergyMJ = time.Since(g.start).Milliseconds() * 60
		round = append(round, s)
	}
	return round, nil
}

// A run whose sampled GPUs sat idle through its measured window, while
// its requests completed, says so under its figures, naming the GPUs and
// the window: their idle power is not the engine's energy.
func TestRecordWarnsOfGPUsIdleThroughTheWindow(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), &wrongGPUs{}, telemetry.GPUConfig{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	from := time.Now()
	time.Sleep(50 * time.Millisecond)
	to := time.Now()
	runs := []*replay.Summary{{Run: 1, Origin: from, WindowFrom: from, WindowTo: to, Wall: to.Sub(from), OutputTokens: 10}}
	var out bytes.Buffer
	if err := (&samplers{gpu: rec}).stopRuns(&out, runs, 10); err != nil {
		t.Fatal(err)
	}
	if line := lineOf(out.String(), "GPU, run 1 measured window:"); !strings.Contains(line, "J/output token") {
		t.Errorf("run line %q: want the window's energy still measured\n%s", line, out.String())
	}
	warn := lineOf(out.String(), "GPU, run 1 warning:")
	for _, want := range []string{"device 0 (GPU-aa), device 1 (GPU-bb)", "0% SM utilization", " s into the recording"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warning %q lacks %q\n%s", warn, want, out.String())
		}
	}
}
