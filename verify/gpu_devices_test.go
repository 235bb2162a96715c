package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
)

// twoGPUs is a host of two GPUs, each with constGPU's readings.
type twoGPUs struct{ a, b constGPU }

func (h *twoGPUs) Sample() ([]telemetry.DeviceSample, error) {
	a, _ := h.a.Sample()
	b, _ := h.b.Sample()
	b[0].Index, b[0].UUID = 1, "GPU-1"
	return append(a, b...), nil
}

// On a host with more GPUs than the plan holds, --gpu-devices samples the
// engine's: their energy is compared where the host's would not be.
func TestRunComparesTheSelectedGPUsEnergy(t *testing.T) {
	startNVML = func(ctx context.Context, interval time.Duration, path string, sel telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return telemetry.StartGPU(ctx, &twoGPUs{}, telemetry.GPUConfig{Interval: interval, Path: path, Devices: sel})
	}
	defer func() { startNVML = telemetry.StartNVML }()
	srv := replaytest.New(replaytest.Options{TTFT: 5 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	for _, c := range []struct {
		devices string
		compare bool
	}{{"", false}, {"0", true}} {
		dir := t.TempDir()
		cfg := replay.DefaultConfig()
		cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
		opt := Options{
			Candidates: candidates(4), Trace: writeTrace(t, dir, 10, 50*time.Millisecond), Replay: cfg,
			Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), GPUInterval: 10 * time.Millisecond,
		}
		if c.devices != "" {
			opt.GPUDevices, _ = telemetry.ParseDeviceSelection(c.devices)
		}
		res, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		got := res.Candidates[0]
		if got.GPU == nil {
			t.Fatalf("devices %q: no GPU measure (%s %s)", c.devices, got.Status, got.Detail)
		}
		if (got.Measured.JPerOutTok != nil) != c.compare {
			t.Errorf("devices %q: %d sampled, measured J/token %v: want compared %v", c.devices, got.GPU.Devices, got.Measured.JPerOutTok, c.compare)
		}
	}
}
