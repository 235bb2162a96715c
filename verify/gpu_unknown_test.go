package verify

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// vanishingGPU is device 0 at 300 W and device 1, which reports nothing
// after its first reading (it fell off the bus).
type vanishingGPU struct {
	mu     sync.Mutex
	rounds int
}

func (g *vanishingGPU) Sample() ([]telemetry.DeviceSample, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rounds++
	a, b := telemetry.NewDeviceSample(0), telemetry.NewDeviceSample(1)
	a.PowerW, a.EnergyMJ = 300, 1e9+int64(g.rounds)*300
	if g.rounds == 1 {
		b.PowerW, b.EnergyMJ = 300, 1e9
	}
	return []telemetry.DeviceSample{a, b}, nil
}

// The recording's energy and the window's are unknown, and the log says
// which device left them so and why, for both.
func TestGPUMeasureSaysWhichDeviceHasNoEnergy(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), &vanishingGPU{}, telemetry.GPUConfig{Interval: 5 * time.Millisecond, Path: filepath.Join(t.TempDir(), "g.csv")})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	time.Sleep(30 * time.Millisecond)
	to := time.Now()
	time.Sleep(10 * time.Millisecond)
	var log bytes.Buffer
	g := &gpuSampler{rec: rec, path: "g.csv", log: &log}
	m, why := g.stop([]*replay.Summary{{OutputTokens: 10, WindowFrom: from, WindowTo: to, Wall: to.Sub(from)}}, false, "")
	if why == "" {
		t.Error("why: empty for an unknown window energy: want the reason")
	}
	if m == nil || m.SampledEnergyJ != nil || m.EnergyJ != nil {
		t.Fatalf("measure %+v: want unknown energy", m)
	}
	for _, want := range []string{
		"verify: GPU telemetry: the recording's energy is unknown: device 1: its reads stopped at 0.000 s into the recording",
		"verify: GPU telemetry over the measured window: telemetry: device 1: its reads stopped at 0.000 s",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}
