package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// idleGPU is a GPU the engine does not run on: 0% SM utilization, the same
// memory used, 60 W of idle power on its energy counter.
type idleGPU struct {
	mu     sync.Mutex
	rounds int
}

func (g *idleGPU) Sample() ([]telemetry.DeviceSample, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rounds++
	s := telemetry.NewDeviceSample(3)
	s.UUID, s.PowerW, s.MemUsed, s.SMUtil = "GPU-idle", 60, 500<<20, 0
	s.EnergyMJ = 1e9 + int64(g.rounds)*300
	return []telemetry.DeviceSample{s}, nil
}

// A candidate measured on a GPU idle through its window, while its
// requests completed, keeps its energy but its measure and the log name
// the GPU and the window: the figure is that GPU's idle power.
func TestGPUMeasureNamesAGPUIdleThroughTheWindow(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), &idleGPU{}, telemetry.GPUConfig{Interval: 5 * time.Millisecond, Path: filepath.Join(t.TempDir(), "g.csv")})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	from := time.Now()
	time.Sleep(30 * time.Millisecond)
	to := time.Now()
	time.Sleep(10 * time.Millisecond)
	var log bytes.Buffer
	g := &gpuSampler{rec: rec, path: "g.csv", log: &log}
	m, why := g.stop([]*replay.Summary{{OutputTokens: 10, Succeeded: 2, WindowFrom: from, WindowTo: to, Wall: to.Sub(from)}}, false, "")
	if why != "" || m == nil || m.JPerOutputTok == nil {
		t.Fatalf("measure %+v (%q): want the energy still measured", m, why)
	}
	if !strings.Contains(m.IdleGPUs, "device 3 (GPU-idle)") || !strings.Contains(m.IdleGPUs, " s into the recording") {
		t.Errorf("idle GPUs %q: want device 3 (GPU-idle) and the window", m.IdleGPUs)
	}
	if !strings.Contains(log.String(), "verify: warning: GPU telemetry over the measured window: device 3 (GPU-idle) read 0% SM utilization") {
		t.Errorf("log lacks the warning:\n%s", log.String())
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"idle_gpus":"device 3 (GPU-idle)`) {
		t.Errorf("JSON lacks idle_gpus: %s", b)
	}
}

// A GPU idle through the window is not the engine's: the energy over it
// is that GPU's idle power, not the candidate's, so energy per output
// token is left out of the comparison (and out of the cost), and
// energy_unknown names the idle GPU.
func TestRunDoesNotCompareTheEnergyOfAnIdleGPU(t *testing.T) {
	sampleGPUs(t, &idleGPU{})
	var log strings.Builder
	c := runSampled(t, 6, 5*time.Millisecond, &log)
	if c.Status != StatusOK || c.GPU == nil || c.GPU.IdleGPUs == "" || c.GPU.JPerOutputTok == nil {
		t.Fatalf("status %s (%s), GPU %+v: want the idle GPU named and its energy kept in the measure", c.Status, c.Detail, c.GPU)
	}
	if c.Measured.JPerOutTok != nil {
		t.Errorf("measured J/output token %v of an idle GPU compared with the prediction %s", *c.Measured.JPerOutTok, fmtOpt(c.Predicted.JPerOutTok))
	}
	if !strings.Contains(c.EnergyUnknown, "device 3 (GPU-idle)") {
		t.Errorf("energy_unknown %q: want the idle GPU named", c.EnergyUnknown)
	}
	if c.CostBasis != CostHardware {
		t.Errorf("cost basis %q: want %q, the energy unmeasured", c.CostBasis, CostHardware)
	}
}

// A GPU idle beside every run is one reason energy went unmeasured, named
// by the GPU, not by each run's window: with the window in it, the
// candidate's reason read "run 1: ..." as if its other runs were
// measured, and the table got one line per candidate for one cause.
func TestIdleGPUIsOneReasonAcrossRunsAndCandidates(t *testing.T) {
	sampleGPUs(t, &idleGPU{})
	dir := t.TempDir()
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4, 8), Trace: writeTrace(t, dir, 6, 50*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), GPUInterval: 5 * time.Millisecond, Repeat: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Status != StatusOK {
			t.Fatalf("%s: status %s (%s)", c.Label, c.Status, c.Detail)
		}
		if strings.HasPrefix(c.EnergyUnknown, "run ") || !strings.Contains(c.EnergyUnknown, "device 3 (GPU-idle)") {
			t.Errorf("%s: energy_unknown %q: want the idle GPU named, for every run", c.Label, c.EnergyUnknown)
		}
	}
	if lines := res.EnergyUnknownLines(); len(lines) != 1 {
		t.Errorf("lines under the table:\n%s\nwant one, for both candidates", strings.Join(lines, "\n"))
	}
}
