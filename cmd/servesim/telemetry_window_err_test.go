package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// A run whose window's energy could not be computed says so and why on
// its own line, even when the whole recording failed too: dashes alone
// read as figures the run had.
func TestRecordGPULineSaysWhyWindowEnergyIsUnknown(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), failingGPU{}, telemetry.GPUConfig{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	time.Sleep(50 * time.Millisecond)
	to := time.Now()
	runs := []*replay.Summary{{Run: 1, Origin: from, WindowFrom: from, WindowTo: to, Wall: to.Sub(from), OutputTokens: 10}}
	var out bytes.Buffer
	if err := (&samplers{gpu: rec}).stopRuns(&out, runs, 10); err == nil {
		t.Error("stopRuns: no error, want the whole recording's")
	}
	line := lineOf(out.String(), "GPU, run 1 measured window:")
	if !strings.Contains(line, "energy not measured: telemetry: no GPU samples") {
		t.Errorf("run line %q: want it to say the energy was not measured and why\n%s", line, out.String())
	}
}
