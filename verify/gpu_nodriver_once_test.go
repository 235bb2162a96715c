package verify

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
)

// A missing NVIDIA driver is a fact of the host, not of a candidate: it
// is said once per verification, as record says it once, however many
// candidates and repeats run.
func TestNoGPUDriverSaidOnce(t *testing.T) {
	startNVML = func(context.Context, time.Duration, string, telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return nil, telemetry.ErrNoDriver
	}
	defer func() { startNVML = telemetry.StartNVML }()
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: time.Millisecond})
	defer srv.Close()
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	var log bytes.Buffer
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4, 8), Trace: writeTrace(t, dir, 3, 10*time.Millisecond), Replay: cfg, Repeat: 2,
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), GPUInterval: 10 * time.Millisecond, Log: &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Status != StatusOK {
			t.Fatalf("%s: status %s (%s)", c.Label, c.Status, c.Detail)
		}
	}
	if n := strings.Count(log.String(), "no GPU telemetry"); n != 1 {
		t.Errorf("no driver said %d times for 2 candidates × 2 repeats, want once; log:\n%s", n, log.String())
	}
}
