package verify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// flakyGPU fails its first reading and answers the others.
type flakyGPU struct{ n int }

func (g *flakyGPU) Sample() ([]telemetry.DeviceSample, error) {
	g.n++
	if g.n == 1 {
		return nil, errors.New("GPU is lost")
	}
	s := telemetry.NewDeviceSample(0)
	s.PowerW, s.EnergyMJ = 300, 1e9
	return []telemetry.DeviceSample{s}, nil
}

// One successful sampling round spans no time: the measure leaves wall
// time at 0 and energy and power unmeasured rather than NaN, which
// verify.json could not hold.
func TestGPUMeasureOfOneSampleIsWritable(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), &flakyGPU{}, telemetry.GPUConfig{Interval: time.Hour, Path: filepath.Join(t.TempDir(), "g.csv")})
	if err != nil {
		t.Fatal(err)
	}
	g := &gpuSampler{rec: rec, path: "g.csv", log: io.Discard}
	m, _ := g.stop([]*replay.Summary{{OutputTokens: 10}}, true, "")
	if m == nil {
		t.Fatal("no measure for one sampling round")
	}
	if math.IsNaN(m.WallSeconds) || m.EnergyJ != nil || m.MeanPowerW != nil {
		t.Errorf("measure %+v holds NaN", m)
	}
	if _, err := json.Marshal(CandidateResult{Repeat: Repeat{GPU: m}}); err != nil {
		t.Errorf("verify.json cannot hold the measure: %v", err)
	}
}

// Energy per output token of a replay that produced no output tokens is
// undefined: null in verify.json, not 0 J (which would read as free).
func TestGPUMeasureWithoutTokensHasNoJoulesPerToken(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), &constGPU{}, telemetry.GPUConfig{Interval: 5 * time.Millisecond, Path: filepath.Join(t.TempDir(), "g.csv")})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	time.Sleep(50 * time.Millisecond)
	to := time.Now()
	g := &gpuSampler{rec: rec, path: "g.csv", log: io.Discard}
	m, _ := g.stop([]*replay.Summary{{OutputTokens: 0, WindowFrom: from, WindowTo: to, Wall: to.Sub(from)}}, true, "")
	if m == nil || m.EnergyJ == nil || !(*m.EnergyJ > 0) {
		t.Fatalf("measure %+v: want energy measured", m)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"j_per_output_token":null`) {
		t.Errorf("verify.json's GPU measure %s: want j_per_output_token null without output tokens", data)
	}
}

// migGPU reports memory but neither power nor an energy counter, as a MIG
// instance does.
type migGPU struct{}

func (migGPU) Sample() ([]telemetry.DeviceSample, error) {
	s := telemetry.NewDeviceSample(0)
	s.MemUsed, s.MemTotal = 1<<30, 1<<34
	return []telemetry.DeviceSample{s}, nil
}

// A device that measures no energy has no energy or mean power in
// verify.json: null, as the telemetry summary writes them, not 0 J and
// 0 W, which read as a replay that drew no power.
func TestGPUMeasureWithoutEnergyIsNull(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), migGPU{}, telemetry.GPUConfig{Interval: 5 * time.Millisecond, Path: filepath.Join(t.TempDir(), "g.csv")})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	g := &gpuSampler{rec: rec, path: "g.csv", log: io.Discard}
	m, _ := g.stop([]*replay.Summary{{OutputTokens: 10}}, true, "")
	if m == nil {
		t.Fatal("no measure")
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"energy_j":null`, `"mean_power_w":null`, `"j_per_output_token":null`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("verify.json's GPU measure %s: want %s for a device that measures no energy", data, want)
		}
	}
}
