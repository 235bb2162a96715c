package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// steadyGPU draws 1000 W: its counter counts 1 J a millisecond of the
// monotonic clock.
type steadyGPU struct{ t0 time.Time }

func (g steadyGPU) Sample() ([]telemetry.DeviceSample, error) {
	s := telemetry.NewDeviceSample(0)
	s.PowerW, s.EnergyMJ = 1000, time.Since(g.t0).Milliseconds()*1000
	return []telemetry.DeviceSample{s}, nil
}

// A run's energy per output token covers its measured window, not the
// probes and warm-ups before it nor the other runs of the recording.
func TestRecordGPULineCoversEachRunsMeasuredWindow(t *testing.T) {
	t0 := time.Now()
	rec, err := telemetry.StartGPU(context.Background(), steadyGPU{t0}, telemetry.GPUConfig{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // probes and warm-ups
	var runs []*replay.Summary
	for k := 1; k <= 2; k++ {
		from := time.Now()
		time.Sleep(100 * time.Millisecond)
		to := time.Now()
		runs = append(runs, &replay.Summary{Run: k, Origin: from, WindowFrom: from, WindowTo: to, Wall: to.Sub(from), OutputTokens: 10})
		time.Sleep(50 * time.Millisecond)
	}
	runs = append(runs, &replay.Summary{Run: 3})
	var out bytes.Buffer
	if err := (&samplers{gpu: rec}).stopRuns(&out, runs, 20); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs[:2] {
		// 1 J a ms over the window, 10 tokens: about Wall in ms / 10 J a token.
		want := float64(r.Wall.Milliseconds()) / 10
		var dev, j, jpt float64
		line := lineOf(out.String(), fmt.Sprintf("GPU, run %d measured window:", r.Run))
		if _, err := fmt.Sscanf(line, "GPU, run %d measured window: %g device-s, %g J (counter), %g J/output token", new(int), &dev, &j, &jpt); err != nil {
			t.Fatalf("run %d: %q: %v\n%s", r.Run, line, err, out.String())
		}
		if d := jpt - want; d < -want/5 || d > want/5 || dev < r.Wall.Seconds()*0.99 || dev > r.Wall.Seconds()*1.01 {
			t.Errorf("run %d: %q; want about %.4g J/output token over %.4g device-s", r.Run, line, want, r.Wall.Seconds())
		}
	}
	if !strings.Contains(out.String(), "GPU, run 3: no measured window") || !strings.Contains(out.String(), "GPU, whole recording: 1 devices") {
		t.Errorf("summary:\n%s", out.String())
	}
}

func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
