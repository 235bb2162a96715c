package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
)

// Energy asked for but not measured says why in verify.json, beside the
// null: the log line is not in the file a reader has.
func TestUnmeasuredEnergySaysWhy(t *testing.T) {
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
		Candidates: candidates(4), Trace: writeTrace(t, dir, 3, 10*time.Millisecond), Replay: cfg, Repeat: 2,
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), GPUInterval: 10 * time.Millisecond, Log: &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusOK || c.Measured.JPerOutTok != nil {
		t.Fatalf("status %s (%s), j_per_out_tok %v: want ok and unmeasured", c.Status, c.Detail, fmtOpt(c.Measured.JPerOutTok))
	}
	for _, why := range []string{c.EnergyUnknown, c.Repeats[1].EnergyUnknown} {
		if !strings.Contains(why, "no NVIDIA driver") {
			t.Errorf("energy_unknown %q: want it to name the missing driver", why)
		}
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"energy_unknown":"`) {
		t.Errorf("verify.json holds no energy_unknown:\n%s", data)
	}
	if _, err := ParseResult(data, "verify.json"); err != nil {
		t.Errorf("read back: %v", err)
	}
}
