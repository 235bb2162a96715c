package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/telemetry"
)

// vanishingGPU is three devices: device 0 draws 300 W throughout; device 1
// reports nothing after the first round (it fell off the bus) and device
// 2 never reports power or an energy counter.
type vanishingGPU struct {
	mu     sync.Mutex
	rounds int
}

func (g *vanishingGPU) Sample() ([]telemetry.DeviceSample, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rounds++
	a, b, c := telemetry.NewDeviceSample(0), telemetry.NewDeviceSample(1), telemetry.NewDeviceSample(2)
	a.PowerW, a.EnergyMJ = 300, int64(g.rounds)*300_000
	b.UUID = "GPU-b"
	if g.rounds == 1 {
		b.PowerW, b.EnergyMJ = 300, 1e9
	}
	return []telemetry.DeviceSample{a, b, c}, nil
}

// Unknown energy is reported, not failed, and the line says which devices
// have none and why.
func TestSamplersNameTheDevicesWithoutEnergy(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), &vanishingGPU{}, telemetry.GPUConfig{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := (&samplers{gpu: rec}).stop(&out, 10); err != nil {
		t.Fatalf("unknown energy failed the command: %v", err)
	}
	line := lineOf(out.String(), "GPU, whole recording")
	for _, want := range []string{"— J (unknown: device 1 (GPU-b): its reads stopped at 0.000 s into the recording; device 2: no energy counter and no power reads)", "— J/output token"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}
